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

/// <summary>
/// With --cache, the sessions' holder is named the way the issue 32 program named it: a static
/// <c>SessionCache.Entries</c>; with --ballast N, <c>SessionCache.Ballast</c> is a large constant
/// <c>List&lt;string&gt;</c> filled once, never grown. A class's static references take
/// consecutive slots of the runtime's statics array in declaration order, Ballast's just before
/// Entries': SOS's gcroot labels the dictionary with the field one slot before its own
/// ("static variable: System.Collections.Generic.List&lt;System.String&gt;.Ballast"), the guess
/// heap-trend's retention must check against <c>dumpclass</c>.
/// </summary>
internal static class SessionCache
{
    internal static readonly List<string> Ballast = new();
    internal static readonly Dictionary<Guid, SessionState> Entries = new();
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
        if (opts.GapWatch)
            StartGapWatcher();
        for (int i = 0; i < opts.Ballast; i++)
            SessionCache.Ballast.Add($"ballast line {i:D8} of a constant catalog that never grows");
        if (opts.Ballast > 0)
            Program.Say($"ballast strings={SessionCache.Ballast.Count}");
        var live = opts.Cache ? SessionCache.Entries : Live;
        if (opts.LargeKb > 0)
        {
            blob = new LargeBlob(opts.LargeKb * 1024);
            Program.Say($"large bytes={blob.Data.Length * 8L}");
        }
        for (int tick = 1; opts.Ticks == 0 || tick <= opts.Ticks; tick++)
        {
            var id = Guid.NewGuid();
            live[id] = new SessionState(id, opts.SessionKb * 1024);
            Order.Enqueue(id);
            while (opts.Keep > 0 && live.Count > opts.Keep)
                live.Remove(Order.Dequeue());
            Program.Say($"sessions tick={tick} live={live.Count}");
            Thread.Sleep(opts.IntervalMs);
        }
        Program.Say($"done live={live.Count}");
        if (opts.HoldMs > 0)
        {
            Program.Say($"holding {opts.HoldMs}");
            Thread.Sleep(opts.HoldMs);
        }
        GC.KeepAlive(blob);
        GC.KeepAlive(SessionCache.Ballast);
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

    // With --gap-watch, a finer measure than the stall watcher's 40 ms floor: a thread that wakes
    // every millisecond (Thread.Sleep(1)) and, once a second, prints the longest gap it saw between
    // two wakes, `gap at=<unix ms> max_us=<n>`. A runtime suspension (an induced GC, a heap walk)
    // holds the thread when it comes back to managed code, so the stop shows as a gap; so does the
    // OS not scheduling it on a loaded machine, which is why a bench compares runs side by side.
    private static void StartGapWatcher()
    {
        var thread = new Thread(() =>
        {
            var clock = Stopwatch.StartNew();
            long last = clock.ElapsedTicks;
            long windowStart = last;
            long max = 0;
            while (true)
            {
                Thread.Sleep(1);
                long now = clock.ElapsedTicks;
                if (now - last > max)
                    max = now - last;
                last = now;
                if (now - windowStart >= Stopwatch.Frequency)
                {
                    long us = max * 1_000_000 / Stopwatch.Frequency;
                    Program.Say($"gap at={DateTimeOffset.UtcNow.ToUnixTimeMilliseconds()} max_us={us}");
                    windowStart = now;
                    max = 0;
                }
            }
        })
        {
            IsBackground = true,
            Name = "gap-watcher",
        };
        thread.Start();
    }
}
