// The `sessions` mode of the CLR test program (see Program.cs): a managed leak with a named type
// and a named holder, for heap-trend's per-type series and retention chains. Every tick a
// SessionState (with a byte[] payload) goes into a static Dictionary<Guid, SessionState>, the
// shape of the classic "session cache that never expires" leak.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;

namespace CdbHarness.Targets;

/// <summary>One user session: the type the leak is made of.</summary>
public sealed class SessionState
{
    public SessionState(Guid id, int payloadBytes)
    {
        Id = id;
        Payload = new byte[payloadBytes];
        // Touch every page so the growth is committed memory.
        for (int i = 0; i < Payload.Length; i += 4096)
            Payload[i] = 1;
    }

    public Guid Id { get; }
    public byte[] Payload { get; }
    public DateTime Created { get; } = DateTime.UtcNow;
}

/// <summary>A big object allocated once and held, never grown.</summary>
public sealed class LargeBlob
{
    public LargeBlob(int bytes) => Data = new long[bytes / 8];

    public long[] Data { get; }
}

internal static class Sessions
{
    // The holder a retention chain must name: a static dictionary nobody ever trims.
    private static readonly Dictionary<Guid, SessionState> Live = new();
    private static readonly Queue<Guid> Order = new();
    private static LargeBlob? blob;

    internal static int Run(Program.Options opts)
    {
        StartStallWatcher();
        if (opts.LargeKb > 0)
        {
            blob = new LargeBlob(opts.LargeKb * 1024);
            Program.Say($"large bytes={blob.Data.Length * 8L}");
        }
        for (int tick = 1; opts.Ticks == 0 || tick <= opts.Ticks; tick++)
        {
            var id = Guid.NewGuid();
            Live[id] = new SessionState(id, opts.SessionKb * 1024);
            Order.Enqueue(id);
            while (opts.Keep > 0 && Live.Count > opts.Keep)
                Live.Remove(Order.Dequeue());
            Program.Say($"sessions tick={tick} live={Live.Count}");
            Thread.Sleep(opts.IntervalMs);
        }
        Program.Say($"done live={Live.Count}");
        if (opts.HoldMs > 0)
        {
            Program.Say($"holding {opts.HoldMs}");
            Thread.Sleep(opts.HoldMs);
        }
        GC.KeepAlive(blob);
        return 0;
    }

    // A background thread that wakes every 5 ms and reports when it was kept from running for
    // 40 ms or more: a dump writer or an induced GC suspends the process, and this is the program's
    // own measure of how long.
    private static void StartStallWatcher()
    {
        var thread = new Thread(() =>
        {
            var clock = Stopwatch.StartNew();
            long last = clock.ElapsedMilliseconds;
            while (true)
            {
                Thread.Sleep(5);
                long now = clock.ElapsedMilliseconds;
                if (now - last >= 40)
                    Program.Say($"stall ms={now - last}");
                last = now;
            }
        })
        {
            IsBackground = true,
            Name = "stall-watcher",
        };
        thread.Start();
    }
}
