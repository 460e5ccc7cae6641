// The streaming modes: one EventPipe session on the target, its events as NDJSON lines, and the
// commands the harness sends on stdin (a dump on the same channel, stop) served beside it.
using System;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.IO;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.Diagnostics.NETCore.Client;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace CdbHarness.Diag;

internal static class Streaming
{
    // Microsoft-Windows-DotNETRuntime keywords (ClrEtwAll.man; ClrTraceEventParser.Keywords):
    // Exception 0x8000; Loader 0x8 and Jit 0x10 give the method load events that name stack frames.
    private const long ExceptionKeyword = 0x8000;
    private const long LoaderKeyword = 0x8;
    private const long JitKeyword = 0x10;
    // CompilationDiagnostic: R2RGetEntryPoint, the only event naming precompiled code first run
    // after the session started (Frames.cs).
    private const long CompilationDiagnosticKeyword = 0x2000000000;

    // The runtime's event IDs the exception session reads (ClrEtwAll.man in dotnet/runtime
    // src/coreclr/vm/ClrEtwAll.man; https://learn.microsoft.com/dotnet/fundamentals/diagnostics/runtime-exception-events
    // and runtime-method-events, runtime-loader-binder-events): ExceptionThrown_V1, then the three
    // that name frames (MethodLoadVerbose, ModuleLoad, R2RGetEntryPoint; Frames.cs).
    private const uint ExceptionThrownId = 80;
    private static readonly uint[] FrameNamingIds = { 143, 152, 159 };

    public static int Run(DiagnosticsClient client, Options opts, LineWriter output)
    {
        bool exceptions = opts.Mode == "exceptions";
        EventPipeSession session;
        if (exceptions)
        {
            session = StartExceptionSession(client, opts, output);
        }
        else
        {
            var providers = new List<EventPipeProvider>
            {
                new EventPipeProvider(
                    opts.Provider,
                    EventLevel.Informational,
                    0,
                    new Dictionary<string, string> { ["EventCounterIntervalSec"] = opts.IntervalSec.ToString(System.Globalization.CultureInfo.InvariantCulture) }
                ),
            };
            session = client.StartEventPipeSession(
                new EventPipeSessionConfiguration(providers, opts.BufferMb, requestRundown: false, requestStackwalk: opts.Walk)
            );
        }
        using var sessionScope = session;
        if (opts.Resume)
        {
            // A launched target waits at startup (DOTNET_DefaultDiagnosticPortSuspend=1) until the
            // session is on, so none of its exceptions is missed.
            try { client.ResumeRuntime(); } catch (ServerErrorException) { /* not suspended */ }
        }
        var source = new EventPipeEventSource(session.EventStream);
        long events = 0;
        var stopRequested = 0;
        // How many events of each runtime event ID arrived (the end line's runtimeEvents): what
        // the session turned on, so a test can see which events the target raised.
        var byId = new long[1024];
        if (exceptions)
        {
            source.AllEvents += data =>
            {
                if (data.ProviderGuid == ClrTraceEventParser.ProviderGuid && (int)data.ID < byId.Length)
                    Interlocked.Increment(ref byId[(int)data.ID]);
            };
            var namer = new FrameNamer(opts.Pid);
            var clr = new ClrTraceEventParser(source);
            if (opts.Stacks)
            {
                clr.LoaderModuleLoad += namer.OnModule;
                clr.MethodLoadVerbose += namer.OnMethod;
                clr.MethodR2RGetEntryPoint += namer.OnR2REntry;
                // Code compiled before the session: named by a rundown (the main session is
                // already on, so nothing compiled in between is missed).
                string? note = Rundown(client, namer);
                if (note is not null)
                    output.Note(note);
            }
            clr.ExceptionStart += data =>
            {
                long seq = Interlocked.Increment(ref events);
                ulong[] stack = opts.Stacks ? FrameNamer.StackOf(data) : Array.Empty<ulong>();
                output.Write(w => WriteException(w, data, seq, stack, namer, opts));
            };
        }
        else
        {
            source.Dynamic.All += data =>
            {
                if (data.EventName != "EventCounters")
                    return;
                Interlocked.Increment(ref events);
                WriteCounter(output, data);
            };
        }
        output.Write(w =>
        {
            w.WriteString("kind", "ready");
            w.WriteString("mode", opts.Mode);
            w.WriteNumber("pid", opts.Pid);
            w.WriteNumber("t", Math.Round(Program.NowMs(), 3));
        });
        var commands = new Thread(() => ServeCommands(client, session, output, () => Interlocked.Exchange(ref stopRequested, 1)))
        {
            IsBackground = true,
            Name = "cdbh-diag commands",
        };
        commands.Start();
        try
        {
            source.Process();
        }
        catch (Exception e) when (e is EndOfStreamException or IOException or ObjectDisposedException)
        {
            // The target went away mid-block.
        }
        // The stream ends as the runtime shuts down, a moment before the process is gone.
        bool gone = false;
        for (int i = 0; i < 40 && stopRequested == 0 && !gone; i++)
        {
            gone = !Directory.Exists($"/proc/{opts.Pid}") || IsZombie(opts.Pid);
            if (!gone)
                Thread.Sleep(50);
        }
        output.Write(w =>
        {
            w.WriteString("kind", "end");
            w.WriteString("reason", gone ? "target-exited" : stopRequested == 1 ? "stopped" : "stream-ended");
            w.WriteNumber("events", Interlocked.Read(ref events));
            w.WriteNumber("lost", source.EventsLost);
            if (exceptions)
            {
                w.WriteStartObject("runtimeEvents");
                for (int id = 0; id < byId.Length; id++)
                {
                    if (byId[id] > 0)
                        w.WriteNumber(id.ToString(System.Globalization.CultureInfo.InvariantCulture), byId[id]);
                }
                w.WriteEndObject();
            }
        });
        source.Dispose();
        return 0;
    }

    // The exception keyword turns on every exception event: at the Informational level and above
    // each throw also raises ExceptionCatchStart/Stop, ExceptionFinallyStart/Stop,
    // ExceptionFilterStart/Stop and ExceptionThrownStop (IDs 250-256), each with its own stack walk,
    // and the Verbose level the method events need brings them all. A record needs only
    // ExceptionThrown_V1 (type, message, HRESULT, flags, thread, the throwing stack). .NET 10's
    // CollectTracing5 takes an allow-list of event IDs per provider, applied after keyword and
    // level (dotnet/diagnostics documentation/design-docs/ipc-protocol.md, "CollectTracing5"; the
    // runtime checks it beside keyword and level, ep_session_provider_allows_event in dotnet/runtime
    // src/native/eventpipe/ep-session-provider.c, added by dotnet/runtime#115265). The events left
    // out then cost the target nothing: its extra CPU per throw in a storm fell from 12-16 µs to
    // 4-8 µs (bench/dotnet-diag-configs.ts, docs/watch-dotnet-linux.md). An older runtime refuses
    // CollectTracing5: the session then starts without the list, and says so.
    private static EventPipeSession StartExceptionSession(DiagnosticsClient client, Options opts, LineWriter output)
    {
        uint[] ids = opts.EventIds ?? (opts.Stacks ? [ExceptionThrownId, .. FrameNamingIds] : [ExceptionThrownId]);
        EventPipeSessionConfiguration Config(bool filtered)
        {
            // ExceptionThrown_V1 is level Error; the method load events that name frames are Verbose.
            long keywords = ExceptionKeyword | (opts.Stacks ? LoaderKeyword | JitKeyword | CompilationDiagnosticKeyword : 0);
            var level = opts.Stacks || opts.Verbose ? EventLevel.Verbose : EventLevel.Error;
            var providers = new List<EventPipeProvider>
            {
                new(
                    ClrTraceEventParser.ProviderName,
                    level,
                    keywords,
                    null!,
                    filtered ? new EventPipeProviderEventFilter(true, ids) : null!
                ),
            };
            if (opts.HeartbeatMs > 0)
                providers.Add(Heartbeat(opts.HeartbeatMs));
            return new EventPipeSessionConfiguration(providers, opts.BufferMb, requestRundown: false, requestStackwalk: opts.Walk);
        }
        if (!opts.Filter)
            return client.StartEventPipeSession(Config(filtered: false));
        try
        {
            return client.StartEventPipeSession(Config(filtered: true));
        }
        catch (UnsupportedCommandException)
        {
            output.Note("the runtime predates event ID filters (.NET 10): every exception event is on, catch and finally included (the target pays for them)");
            return client.StartEventPipeSession(Config(filtered: false));
        }
    }

    // TraceEvent hands out an EventPipe event only once a later "sorted" event arrives (the
    // runtime marks the first event of each thread in each flush so; EventCache.SortAndDispatch in
    // microsoft/perfview src/TraceEvent/EventPipe/EventCache.cs, and the comment over
    // ep_buffer_manager_write_all_buffers_to_file_v4 in dotnet/runtime src/native/eventpipe/
    // ep-buffer-manager.c). A thread that throws twice and then goes quiet has its second throw held
    // until something else happens in the target: in a quiet program, until it exits. The runtime's
    // own counters, sampled every HeartbeatMs on their timer thread, are that something: each
    // sample is a later sorted event that releases what was held. They are not written out.
    private static EventPipeProvider Heartbeat(int ms) =>
        new(
            "System.Runtime",
            EventLevel.Informational,
            0,
            new Dictionary<string, string>
            {
                ["EventCounterIntervalSec"] = (ms / 1000.0).ToString(System.Globalization.CultureInfo.InvariantCulture),
            }
        );

    private static bool IsZombie(int pid)
    {
        try
        {
            string stat = File.ReadAllText($"/proc/{pid}/stat");
            int close = stat.LastIndexOf(')');
            return close > 0 && close + 2 < stat.Length && stat[close + 2] is 'Z' or 'X';
        }
        catch (IOException)
        {
            return true;
        }
    }

    /** Names of the code compiled before the session; a note when the rundown failed. */
    private static string? Rundown(DiagnosticsClient client, FrameNamer namer)
    {
        try
        {
            var provider = new EventPipeProvider(ClrTraceEventParser.ProviderName, EventLevel.Informational, 0);
            using var rundown = client.StartEventPipeSession(provider, requestRundown: true, circularBufferMB: 64);
            // Stopping at once is what makes the runtime write the rundown (MethodDCStopVerbose,
            // ModuleDCStop for everything loaded), then end the stream. The stream is read while
            // the stop is sent: a rundown nobody reads fills the socket and blocks the target.
            var reading = Task.Run(() =>
            {
                using var source = new EventPipeEventSource(rundown.EventStream);
                var parser = new ClrRundownTraceEventParser(source);
                parser.LoaderModuleDCStop += namer.OnModule;
                parser.MethodDCStopVerbose += namer.OnMethod;
                source.Process();
            });
            rundown.Stop();
            if (!reading.Wait(TimeSpan.FromSeconds(30)))
                return "rundown did not end within 30 s (frames of code compiled before the watch may be unnamed)";
            return null;
        }
        catch (Exception e)
        {
            return $"rundown failed (frames of code compiled before the watch may be unnamed): {e.GetType().Name}: {e.Message}";
        }
    }

    private static void WriteException(Utf8JsonWriter w, ExceptionTraceData data, long seq, ulong[] stack, FrameNamer namer, Options opts)
    {
        w.WriteString("kind", "exception");
        w.WriteNumber("seq", seq);
        w.WriteNumber("t", Math.Round(Program.UnixMs(data.TimeStamp), 3));
        w.WriteString("type", data.ExceptionType);
        w.WriteString("message", data.ExceptionMessage);
        w.WriteString("hresult", Program.Hex(unchecked((uint)data.ExceptionHRESULT), 8));
        w.WriteNumber("flags", (int)data.ExceptionFlags);
        w.WriteNumber("threadId", data.ThreadID);
        w.WriteString("eip", Program.Hex((long)data.ExceptionEIP, 0));
        w.WriteStartArray("frames");
        for (int i = 0; i < stack.Length && i < opts.Frames; i++)
            w.WriteStringValue(namer.Name(stack[i]));
        w.WriteEndArray();
    }

    private static void WriteCounter(LineWriter output, TraceEvent data)
    {
        if (data.PayloadValue(0) is not IDictionary<string, object> outer || !outer.TryGetValue("Payload", out var inner) || inner is not IDictionary<string, object> payload)
            return;
        string S(string key) => payload.TryGetValue(key, out var v) ? Convert.ToString(v, System.Globalization.CultureInfo.InvariantCulture) ?? "" : "";
        double D(string key) => payload.TryGetValue(key, out var v) && v is IConvertible c ? c.ToDouble(System.Globalization.CultureInfo.InvariantCulture) : double.NaN;
        string type = S("CounterType");
        double value = type == "Sum" ? D("Increment") : D("Mean");
        output.Write(w =>
        {
            w.WriteString("kind", "counter");
            w.WriteNumber("t", Math.Round(Program.UnixMs(data.TimeStamp), 3));
            w.WriteString("provider", data.ProviderName);
            w.WriteString("name", S("Name"));
            w.WriteString("displayName", S("DisplayName"));
            if (double.IsFinite(value)) w.WriteNumber("value", value); else w.WriteNull("value");
            w.WriteString("unit", S("DisplayUnits"));
            w.WriteString("counterType", type);
            double interval = D("IntervalSec");
            if (double.IsFinite(interval)) w.WriteNumber("intervalSec", Math.Round(interval, 3));
        });
    }

    /** stdin: one JSON command per line; end of input stops the session. */
    private static void ServeCommands(DiagnosticsClient client, EventPipeSession session, LineWriter output, Action markStop)
    {
        var stdin = new StreamReader(Console.OpenStandardInput());
        string? line;
        while ((line = stdin.ReadLine()) is not null)
        {
            JsonElement command;
            try
            {
                command = JsonDocument.Parse(line).RootElement;
            }
            catch (JsonException e)
            {
                output.Error("USAGE", $"bad command line: {e.Message}");
                continue;
            }
            string op = command.TryGetProperty("op", out var o) ? o.GetString() ?? "" : "";
            if (op == "stop")
                break;
            if (op == "dump")
            {
                JsonElement? id = command.TryGetProperty("id", out var i) ? i.Clone() : null;
                string path = command.TryGetProperty("path", out var p) ? p.GetString() ?? "" : "";
                string type = command.TryGetProperty("type", out var t) ? t.GetString() ?? "full" : "full";
                // The dump runs beside the event stream: events keep flowing while createdump works.
                Task.Run(() => output.Write(Dumper.Write(client, path, type, id)));
                continue;
            }
            output.Error("USAGE", $"unknown op '{op}'");
        }
        markStop();
        try { session.Stop(); } catch (Exception) { /* already ended */ }
    }
}

