// cdbh-diag: the harness's one client of the .NET runtime's diagnostics IPC channel
// (https://github.com/dotnet/diagnostics/blob/main/documentation/design-docs/ipc-protocol.md),
// through Microsoft's own libraries from NuGet: Microsoft.Diagnostics.NETCore.Client (the channel:
// sessions, dumps, resume) and Microsoft.Diagnostics.Tracing.TraceEvent (the nettrace event stream).
// It speaks NDJSON: one JSON object per line on stdout, commands as JSON lines on stdin. Two
// consumers share it: `watch` (mode `exceptions`) and heap-trend's counters tier (mode `counters`).
//
//   cdbh-diag probe      --pid N
//   cdbh-diag exceptions --pid N [--no-stacks] [--frames N] [--buffer-mb N] [--heartbeat-ms N] [--resume]
//                        [--no-walk] [--verbose] [--no-filter] [--event-ids 80,143,…]
//                        (for measuring: no runtime stack walk; Verbose level; every event of the
//                        keywords, not only the chosen IDs; another ID allow-list)
//   cdbh-diag counters   --pid N [--interval SEC] [--provider NAME] [--resume]
//   cdbh-diag dump       --pid N --path FILE [--type full|heap|mini|triage]
//
// Lines out (every line has "kind"):
//   {"kind":"ready","mode":"exceptions","pid":N,"t":UNIX_MS}        the session is running
//   {"kind":"exception","seq":N,"t":UNIX_MS,"type":..,"message":..,"hresult":"0x…","flags":N,
//    "threadId":N,"eip":"0x…","frames":["module!Namespace.Type.Method", …]}
//   {"kind":"counter","t":UNIX_MS,"provider":..,"name":..,"displayName":..,"value":X,"unit":..,
//    "counterType":"Mean"|"Sum","intervalSec":X}
//   {"kind":"dump","id":ID,"ok":true,"path":..,"startT":UNIX_MS,"ms":X}  | "ok":false,"error":..
//   {"kind":"note","message":..}                                     something the harness should say
//   {"kind":"end","reason":"target-exited"|"stopped","events":N,"lost":N,
//    "runtimeEvents":{"80":N,…}}                  exceptions: events that arrived per runtime event ID
//   {"kind":"error","code":"NOT_DOTNET"|"NO_CHANNEL"|"NO_PROCESS"|"UNSUPPORTED"|"FAILED","message":..}
// Commands in (streaming modes): {"op":"dump","id":ID,"path":FILE,"type":"full"}  {"op":"stop"}
// End of stdin is "stop". Exit codes: 0 ended, 3 no such .NET process or no channel, 1 failure.
using System;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.IO;
using System.Text;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Diagnostics.NETCore.Client;

namespace CdbHarness.Diag;

public static class Program
{
    public static int Main(string[] args)
    {
        var opts = Options.Parse(args);
        if (opts is null)
        {
            Console.Error.WriteLine(
                "usage: cdbh-diag probe|exceptions|counters|dump --pid N [options] (see Program.cs)"
            );
            return 2;
        }
        using var output = new LineWriter(Console.OpenStandardOutput());
        var problem = Probe.Check(opts.Pid);
        if (problem is not null)
        {
            output.Error(problem.Value.code, problem.Value.message);
            return 3;
        }
        var client = new DiagnosticsClient(opts.Pid);
        try
        {
            switch (opts.Mode)
            {
                case "probe":
                    output.Write(w =>
                    {
                        w.WriteString("kind", "probe");
                        w.WriteNumber("pid", opts.Pid);
                        w.WriteString("runtime", Probe.RuntimeVersion(opts.Pid));
                    });
                    return 0;
                case "dump":
                    var result = Dumper.Write(client, opts.DumpPath ?? "", opts.DumpType, null);
                    output.Write(result);
                    return 0;
                case "exceptions":
                case "counters":
                    return Streaming.Run(client, opts, output);
                default:
                    output.Error("USAGE", $"unknown mode '{opts.Mode}'");
                    return 2;
            }
        }
        catch (ServerNotAvailableException e)
        {
            output.Error("NO_CHANNEL", $"pid {opts.Pid}: the diagnostics channel did not answer: {e.Message}");
            return 3;
        }
        catch (UnsupportedCommandException e)
        {
            output.Error("UNSUPPORTED", $"pid {opts.Pid}: the runtime is too old for this command: {e.Message}");
            return 3;
        }
        catch (Exception e)
        {
            output.Error("FAILED", $"{e.GetType().Name}: {e.Message}");
            return 1;
        }
    }

    internal static double UnixMs(DateTime t) =>
        (t.ToUniversalTime() - DateTime.UnixEpoch).TotalMilliseconds;

    internal static double NowMs() => UnixMs(DateTime.UtcNow);

    internal static string Hex(long value, int width) =>
        "0x" + value.ToString(width > 0 ? "x" + width.ToString(CultureInfo.InvariantCulture) : "x", CultureInfo.InvariantCulture);
}

internal sealed class Options
{
    public string Mode = "";
    public int Pid;
    public bool Stacks = true;
    public int Frames = 32;
    public int BufferMb = 256;
    public int HeartbeatMs = 100;
    public bool Walk = true;
    public bool Verbose;
    public bool Filter = true;
    public uint[]? EventIds;
    public bool Resume;
    public int IntervalSec = 1;
    public string Provider = "System.Runtime";
    public string? DumpPath;
    public string DumpType = "full";

    public static Options? Parse(string[] args)
    {
        if (args.Length == 0)
            return null;
        var o = new Options { Mode = args[0] };
        for (int i = 1; i < args.Length; i++)
        {
            string Next() => i + 1 < args.Length ? args[++i] : throw new ArgumentException($"{args[i]} needs a value");
            int Number() => int.Parse(Next(), CultureInfo.InvariantCulture);
            switch (args[i])
            {
                case "--pid": o.Pid = Number(); break;
                case "--no-stacks": o.Stacks = false; break;
                case "--frames": o.Frames = Number(); break;
                case "--buffer-mb": o.BufferMb = Number(); break;
                case "--heartbeat-ms": o.HeartbeatMs = Number(); break;
                case "--no-walk": o.Walk = false; break;
                case "--verbose": o.Verbose = true; break;
                case "--no-filter": o.Filter = false; break;
                case "--event-ids":
                    o.EventIds = Array.ConvertAll(Next().Split(',', StringSplitOptions.RemoveEmptyEntries), v => uint.Parse(v, CultureInfo.InvariantCulture));
                    break;
                case "--resume": o.Resume = true; break;
                case "--interval": o.IntervalSec = Number(); break;
                case "--provider": o.Provider = Next(); break;
                case "--path": o.DumpPath = Next(); break;
                case "--type": o.DumpType = Next(); break;
                default: return null;
            }
        }
        return o.Pid > 0 ? o : null;
    }
}

/** One JSON object per line, written whole under a lock (events and command replies interleave). */
internal sealed class LineWriter : IDisposable
{
    private readonly Stream stream;
    private readonly ArrayBufferWriterLite buffer = new();
    private readonly object gate = new();

    public LineWriter(Stream stream) => this.stream = stream;

    public void Write(Action<Utf8JsonWriter> body)
    {
        lock (gate)
        {
            buffer.Clear();
            using (var w = new Utf8JsonWriter(buffer, new JsonWriterOptions { SkipValidation = true }))
            {
                w.WriteStartObject();
                body(w);
                w.WriteEndObject();
            }
            buffer.WriteByte((byte)'\n');
            try
            {
                stream.Write(buffer.Span);
                stream.Flush();
            }
            catch (IOException)
            {
                // The harness went away: nothing to tell it any more.
            }
        }
    }

    public void Note(string message) =>
        Write(w =>
        {
            w.WriteString("kind", "note");
            w.WriteString("message", message);
        });

    public void Error(string code, string message) =>
        Write(w =>
        {
            w.WriteString("kind", "error");
            w.WriteString("code", code);
            w.WriteString("message", message);
        });

    public void Dispose() => stream.Dispose();
}

/** A reusable growable byte buffer for Utf8JsonWriter. */
internal sealed class ArrayBufferWriterLite : System.Buffers.IBufferWriter<byte>
{
    private byte[] data = new byte[4096];
    private int used;

    public ReadOnlySpan<byte> Span => data.AsSpan(0, used);

    public void Clear() => used = 0;

    public void Advance(int count) => used += count;

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return data.AsMemory(used);
    }

    public Span<byte> GetSpan(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return data.AsSpan(used);
    }

    public void WriteByte(byte b)
    {
        Ensure(1);
        data[used++] = b;
    }

    private void Ensure(int hint)
    {
        int need = used + Math.Max(hint, 256);
        if (need > data.Length)
            Array.Resize(ref data, Math.Max(need, data.Length * 2));
    }
}

/** Is PID a live .NET process with a diagnostics channel? Null when yes, else why not. */
internal static class Probe
{
    public static (string code, string message)? Check(int pid)
    {
        if (!Directory.Exists($"/proc/{pid}") && !OperatingSystem.IsWindows())
            return ("NO_PROCESS", $"no process with pid {pid}");
        foreach (int published in DiagnosticsClient.GetPublishedProcesses())
        {
            if (published == pid)
                return null;
        }
        string runtime = RuntimeVersion(pid);
        if (runtime.Length > 0)
        {
            return (
                "NO_CHANNEL",
                $"pid {pid} runs the .NET runtime ({runtime}) but publishes no diagnostics channel: the runtime is older than .NET Core 3.0, or diagnostics are off (DOTNET_EnableDiagnostics=0), or its TMPDIR differs from ours"
            );
        }
        return ("NOT_DOTNET", $"pid {pid} is not a .NET process (no CoreCLR loaded, no diagnostics channel)");
    }

    /** The directory of the libcoreclr.so the process mapped (names the runtime version), or "". */
    public static string RuntimeVersion(int pid)
    {
        try
        {
            foreach (string line in File.ReadLines($"/proc/{pid}/maps"))
            {
                int at = line.IndexOf("/libcoreclr.so", StringComparison.Ordinal);
                if (at < 0)
                    continue;
                int start = line.IndexOf('/');
                return line.Substring(start, at - start);
            }
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        return "";
    }
}

internal static class Dumper
{
    public static Action<Utf8JsonWriter> Write(DiagnosticsClient client, string path, string type, JsonElement? id)
    {
        double start = Program.NowMs();
        var dumpType = type switch
        {
            "mini" => DumpType.Normal,
            "heap" => DumpType.WithHeap,
            "triage" => DumpType.Triage,
            _ => DumpType.Full,
        };
        string? error = null;
        try
        {
            client.WriteDump(dumpType, path, WriteDumpFlags.None);
        }
        catch (Exception e)
        {
            error = $"{e.GetType().Name}: {e.Message}";
        }
        double ms = Program.NowMs() - start;
        return w =>
        {
            w.WriteString("kind", "dump");
            if (id is not null)
            {
                w.WritePropertyName("id");
                id.Value.WriteTo(w);
            }
            w.WriteBoolean("ok", error is null);
            w.WriteString("path", path);
            w.WriteNumber("startT", Math.Round(start, 3));
            w.WriteNumber("ms", Math.Round(ms, 3));
            if (error is not null)
                w.WriteString("error", error);
        };
    }
}
