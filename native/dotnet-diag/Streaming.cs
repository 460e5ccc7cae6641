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
using Microsoft.Diagnostics.Tracing.Etlx;
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

    public static int Run(DiagnosticsClient client, Options opts, LineWriter output)
    {
        bool exceptions = opts.Mode == "exceptions";
        var providers = new List<EventPipeProvider>();
        if (exceptions)
        {
            // ExceptionThrown_V1 is level Error; the method load events that name frames are
            // Verbose, which also brings the catch/finally/filter events (counted, not written).
            long keywords = ExceptionKeyword | (opts.Stacks ? LoaderKeyword | JitKeyword : 0);
            var level = opts.Stacks ? EventLevel.Verbose : EventLevel.Error;
            providers.Add(new EventPipeProvider(ClrTraceEventParser.ProviderName, level, keywords));
        }
        else
        {
            providers.Add(
                new EventPipeProvider(
                    opts.Provider,
                    EventLevel.Informational,
                    0,
                    new Dictionary<string, string> { ["EventCounterIntervalSec"] = opts.IntervalSec.ToString(System.Globalization.CultureInfo.InvariantCulture) }
                )
            );
        }
        using EventPipeSession session = client.StartEventPipeSession(providers, requestRundown: false, circularBufferMB: opts.BufferMb);
        if (opts.Resume)
        {
            // A launched target waits at startup (DOTNET_DefaultDiagnosticPortSuspend=1) until the
            // session is on, so none of its exceptions is missed.
            try { client.ResumeRuntime(); } catch (ServerErrorException) { /* not suspended */ }
        }
        TraceEventDispatcher source = exceptions && opts.Stacks
            ? TraceLog.CreateFromEventPipeSession(session, TraceLog.EventPipeRundownConfiguration.Enable(client))
            : new EventPipeEventSource(Environment.GetEnvironmentVariable("CDBH_DIAG_TRACE_READS") == "1" ? new ReadTracer(session.EventStream) : session.EventStream);
        long events = 0;
        var stopRequested = 0;
        if (exceptions)
        {
            var clr = new ClrTraceEventParser(source);
            clr.ExceptionStart += data =>
            {
                long seq = Interlocked.Increment(ref events);
                output.Write(w => WriteException(w, data, seq, opts));
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
        bool gone = !Directory.Exists($"/proc/{opts.Pid}");
        output.Write(w =>
        {
            w.WriteString("kind", "end");
            w.WriteString("reason", gone ? "target-exited" : stopRequested == 1 ? "stopped" : "stream-ended");
            w.WriteNumber("events", Interlocked.Read(ref events));
            w.WriteNumber("lost", source.EventsLost);
        });
        source.Dispose();
        return 0;
    }

    private static void WriteException(Utf8JsonWriter w, ExceptionTraceData data, long seq, Options opts)
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
        if (opts.Stacks)
        {
            var stack = data.CallStack();
            for (int i = 0; stack is not null && i < opts.Frames; i++, stack = stack.Caller)
            {
                var code = stack.CodeAddress;
                string module = code.ModuleName;
                string method = code.FullMethodName;
                if (method.Length == 0)
                    w.WriteStringValue((module.Length > 0 ? module + "!" : "") + Program.Hex((long)code.Address, 0));
                else
                    w.WriteStringValue((module.Length > 0 ? module + "!" : "") + method);
            }
        }
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

internal sealed class ReadTracer : Stream
{
    private readonly Stream inner;
    public ReadTracer(Stream inner) => this.inner = inner;
    public override int Read(byte[] buffer, int offset, int count)
    {
        int n = inner.Read(buffer, offset, count);
        Console.Error.WriteLine($"read {n}/{count} at {Program.NowMs():F1}");
        return n;
    }
    public override int Read(Span<byte> buffer)
    {
        int n = inner.Read(buffer);
        Console.Error.WriteLine($"readspan {n}/{buffer.Length} at {Program.NowMs():F1}");
        return n;
    }
    public override bool CanRead => true;
    public override bool CanSeek => false;
    public override bool CanWrite => false;
    public override long Length => throw new NotSupportedException();
    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }
    public override void Flush() { }
    public override long Seek(long o, SeekOrigin s) => throw new NotSupportedException();
    public override void SetLength(long v) => throw new NotSupportedException();
    public override void Write(byte[] b, int o, int c) => throw new NotSupportedException();
}
