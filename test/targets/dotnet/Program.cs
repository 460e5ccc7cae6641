// The CLR test program: real managed exceptions and real managed + native growth, for the
// harness's CLR paths (watch --clr, analyze/inspect on CLR dumps, SOS transcripts from dotnet-dump).
// It prints everything it does, one line per act, so tests compare the debugger's view with the
// program's own record:
//   PID <decimal pid>                     first line, before any pacing
//   throw <n> <Type> hresult=0x........   just before a throw (null-deref: before the dereference)
//   caught <n> <Type> hresult=0x........ [inner=<Type> hresult=0x........]
//   unhandled <n> <Type> hresult=0x........   just before the last, uncaught throw
//   leak tick=<n> managed=<bytes> native=<bytes>
// Usage:
//   cdbh-dotnet exceptions [-w waitMs] [-i intervalMs] [--stdin] [--hold ms] [--acts LIST]
//   cdbh-dotnet leak [-w waitMs] [-i intervalMs] [-n ticks] [--managed-kb N] [--native-kb N]
//                    [--hold ms]   (sleeps after the last tick: time to take a dump)
//   cdbh-dotnet hold [ms]          (parks in a named frame, for clrstack/threads recordings)
//   cdbh-dotnet storm [--seconds S] [-n N] [--threads T] [--rate R] [--work N] [--busy] [--hold ms]
//       StormExceptions thrown and caught on T threads (Storm.cs): the exception-rate benchmark.
//   cdbh-dotnet sessions [-w waitMs] [-i intervalMs] [-n ticks] [--session-kb N] [--keep N]
//                    [--large-kb N] [--hold ms] [--cache] [--ballast N] [--gap-watch]
//       every tick adds one SessionState (holding a byte[] of --session-kb) to a static
//       Dictionary<Guid, SessionState>: the managed leak whose type and holder heap-trend names.
//       --keep N evicts the oldest session past N (a cache that does not grow: nothing to flag);
//       --large-kb allocates one LargeBlob of that size at start, held for the whole run and never
//       grown (a big type that must not be flagged). Prints `sessions tick=<n> live=<count>`.
//       A watcher thread prints `stall ms=<n>` whenever it could not run for 40 ms or more: what
//       a dump or a GC heap walk cost the running program, seen from inside.
//       --cache holds the sessions in SessionCache.Entries (the issue 32 program's holder) instead
//       of Sessions.Live; --ballast N fills a static List<string> SessionCache.Ballast with N strings
//       once (a large constant list: never flagged); --gap-watch adds a 1 ms watcher that prints
//       `gap at=<unix ms> max_us=<n>` every second (the longest it was kept from running).
// --acts picks and orders the acts (default invalid-op,null,inner,unhandled; also hold, and
// threads: --threads N threads each throw and catch one TimeoutException at once): under
// Wine 8, .NET 8's handling of the null dereference and of the throw inside a catch block spins in
// Wine's exception dispatch (.NET 10's does not), so .NET 8 runs use --acts invalid-op,unhandled.
// -w sleeps before the first act (time for a debugger to attach); --stdin waits for a line on
// stdin instead; --wait-file PATH waits until PATH exists (a test creates it once attached); -n 0 leaks until killed. The exit code of a finished run is 0; the unhandled
// exception ends the process the way the runtime does (e0434352 on Windows, SIGABRT on Linux).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace CdbHarness.Targets;

/// <summary>The program's own exception type, thrown with an inner exception.</summary>
public sealed class WidgetException : Exception
{
    public WidgetException(string message, Exception inner)
        : base(message, inner) { }
}

/// <summary>A reference type with a field, so a null instance is dereferenced for real.</summary>
public sealed class Widget
{
    public int Size = 1;
}

public static class Program
{
    private static readonly List<byte[]> Managed = new();
    private static readonly List<IntPtr> Native = new();

    private static string Hex(int hresult) => "0x" + hresult.ToString("x8", CultureInfo.InvariantCulture);

    internal static void Say(string line)
    {
        Console.Out.WriteLine(line);
        Console.Out.Flush();
    }

    public static int Main(string[] args)
    {
        Say($"PID {Environment.ProcessId}");
        string mode = args.Length > 0 ? args[0] : "exceptions";
        var opts = Options.Parse(args.AsSpan(args.Length > 0 ? 1 : 0).ToArray());
        if (opts.WaitFile is not null)
        {
            Say($"waiting for {opts.WaitFile}");
            while (!System.IO.File.Exists(opts.WaitFile))
                Thread.Sleep(20);
        }
        else if (opts.Stdin)
        {
            Say("waiting for a line on stdin");
            Console.In.ReadLine();
        }
        else if (opts.WaitMs > 0)
        {
            Thread.Sleep(opts.WaitMs);
        }
        switch (mode)
        {
            case "exceptions":
                return Exceptions(opts);
            case "leak":
                return Leak(opts);
            case "hold":
                Hold(opts.HoldMs > 0 ? opts.HoldMs : 600_000);
                return 0;
            case "sessions":
                return Sessions.Run(opts);
            case "storm":
                return Storm.Run(opts);
            default:
                Console.Error.WriteLine($"unknown mode '{mode}' (exceptions | leak | hold | sessions | storm)");
                return 2;
        }
    }

    private static int Exceptions(Options opts)
    {
        int n = 0;
        foreach (string act in opts.Acts)
        {
            n++;
            switch (act)
            {
                case "invalid-op":
                    try
                    {
                        Say($"throw {n} System.InvalidOperationException hresult={Hex(unchecked((int)0x80131509))}");
                        ThrowInvalidOperation();
                    }
                    catch (InvalidOperationException e)
                    {
                        Say($"caught {n} {e.GetType().FullName} hresult={Hex(e.HResult)}");
                    }
                    break;
                case "null":
                    try
                    {
                        Say($"throw {n} null-dereference");
                        Say($"size {ReadSize(null)}");
                    }
                    catch (NullReferenceException e)
                    {
                        Say($"caught {n} {e.GetType().FullName} hresult={Hex(e.HResult)}");
                    }
                    break;
                case "inner":
                    try
                    {
                        Say($"throw {n} CdbHarness.Targets.WidgetException inner=System.FormatException");
                        ThrowWithInner();
                    }
                    catch (WidgetException e)
                    {
                        var inner = e.InnerException!;
                        Say(
                            $"caught {n} {e.GetType().FullName} hresult={Hex(e.HResult)} inner={inner.GetType().FullName} hresult={Hex(inner.HResult)}"
                        );
                    }
                    break;
                case "hold":
                    Hold(opts.HoldMs > 0 ? opts.HoldMs : 600_000);
                    break;
                case "threads":
                    ThrowOnThreads(n, opts.Threads);
                    break;
                case "unhandled":
                    Say($"unhandled {n} System.ArgumentException hresult={Hex(unchecked((int)0x80070057))}");
                    ThrowUnhandled();
                    break;
                default:
                    throw new ArgumentException($"unknown act '{act}' (invalid-op | null | inner | threads | hold | unhandled)");
            }
            Thread.Sleep(opts.IntervalMs);
        }
        Say($"done {n}");
        return 0;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowInvalidOperation() =>
        throw new InvalidOperationException("cdbh: invalid operation on purpose");

    // A real null dereference: the load of w.Size faults in JIT-compiled code and the runtime turns
    // the access violation into a NullReferenceException.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int ReadSize(Widget? w) => w!.Size;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowWithInner()
    {
        try
        {
            int.Parse("not a number", CultureInfo.InvariantCulture);
        }
        catch (FormatException inner)
        {
            throw new WidgetException("cdbh: widget failed", inner);
        }
    }

    // Many threads each throw and catch one TimeoutException ("cdbh: thread <k>"), all at once.
    private static void ThrowOnThreads(int n, int threads)
    {
        int count = Math.Max(1, threads);
        Say($"throw {n} System.TimeoutException threads={count}");
        var started = new Thread[count];
        int caught = 0;
        for (int t = 0; t < count; t++)
        {
            int k = t;
            started[t] = new Thread(() =>
            {
                try
                {
                    ThrowTimeout(k);
                }
                catch (TimeoutException)
                {
                    Interlocked.Increment(ref caught);
                }
            });
            started[t].Start();
        }
        foreach (var t in started)
            t.Join();
        Say($"caught {n} System.TimeoutException hresult={Hex(unchecked((int)0x80131505))} count={caught}");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowTimeout(int thread) => throw new TimeoutException($"cdbh: thread {thread}");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowUnhandled() =>
        throw new ArgumentException("cdbh: unhandled on purpose", "widget");

    // Parks the main thread inside two nested catch blocks (an InvalidOperationException being
    // handled while a WidgetException with an inner FormatException is handled), so a dump taken
    // now shows a managed stack, a current exception and a nested one on the thread.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Hold(int ms)
    {
        try
        {
            ThrowInvalidOperation();
        }
        catch (InvalidOperationException outer)
        {
            try
            {
                ThrowWithInner();
            }
            catch (WidgetException e)
            {
                Say($"holding {ms} in catch {e.GetType().FullName} within catch {outer.GetType().FullName}");
                Thread.Sleep(ms);
            }
        }
    }

    private static int Leak(Options opts)
    {
        long managed = 0;
        long native = 0;
        for (int tick = 1; opts.Ticks == 0 || tick <= opts.Ticks; tick++)
        {
            var block = new byte[opts.ManagedKb * 1024];
            // Touch every page so the growth is committed memory, not just reserved.
            for (int i = 0; i < block.Length; i += 4096)
                block[i] = (byte)tick;
            Managed.Add(block);
            managed += block.Length;
            IntPtr p = Marshal.AllocHGlobal(opts.NativeKb * 1024);
            unsafe
            {
                byte* bytes = (byte*)p;
                for (int i = 0; i < opts.NativeKb * 1024; i += 4096)
                    bytes[i] = (byte)tick;
            }
            Native.Add(p);
            native += opts.NativeKb * 1024L;
            Say($"leak tick={tick} managed={managed} native={native}");
            Thread.Sleep(opts.IntervalMs);
        }
        Say($"done managed={managed} native={native}");
        if (opts.HoldMs > 0)
        {
            Say($"holding {opts.HoldMs}");
            Thread.Sleep(opts.HoldMs);
        }
        return 0;
    }

    internal sealed class Options
    {
        public int SessionKb = 64;
        public int Keep;
        public int LargeKb;
        public int WaitMs;
        public int IntervalMs = 100;
        public int Ticks = 0;
        public int ManagedKb = 256;
        public int NativeKb = 128;
        public int HoldMs;
        public int Threads = 4;
        public int Seconds;
        public int Rate;
        public int Work = 200;
        public bool Busy;
        public bool Stdin;
        public bool Cache;
        public bool GapWatch;
        public int Ballast;
        public string? WaitFile;
        public string[] Acts = { "invalid-op", "null", "inner", "unhandled" };

        public static Options Parse(string[] args)
        {
            var o = new Options();
            for (int i = 0; i < args.Length; i++)
            {
                string a = args[i];
                int Next() =>
                    i + 1 < args.Length
                        ? int.Parse(args[++i], CultureInfo.InvariantCulture)
                        : throw new ArgumentException($"{a} needs a number");
                switch (a)
                {
                    case "-w":
                        o.WaitMs = Next();
                        break;
                    case "-i":
                        o.IntervalMs = Next();
                        break;
                    case "-n":
                        o.Ticks = Next();
                        break;
                    case "--managed-kb":
                        o.ManagedKb = Next();
                        break;
                    case "--native-kb":
                        o.NativeKb = Next();
                        break;
                    case "--hold":
                        o.HoldMs = Next();
                        break;
                    case "--session-kb":
                        o.SessionKb = Next();
                        break;
                    case "--keep":
                        o.Keep = Next();
                        break;
                    case "--large-kb":
                        o.LargeKb = Next();
                        break;
                    case "--threads":
                        o.Threads = Next();
                        break;
                    case "--seconds":
                        o.Seconds = Next();
                        break;
                    case "--rate":
                        o.Rate = Next();
                        break;
                    case "--work":
                        o.Work = Next();
                        break;
                    case "--wait-file":
                        o.WaitFile = i + 1 < args.Length ? args[++i] : throw new ArgumentException("--wait-file needs a path");
                        break;
                    case "--stdin":
                        o.Stdin = true;
                        break;
                    case "--busy":
                        o.Busy = true;
                        break;
                    case "--cache":
                        o.Cache = true;
                        break;
                    case "--gap-watch":
                        o.GapWatch = true;
                        break;
                    case "--ballast":
                        o.Ballast = Next();
                        break;
                    case "--acts":
                        o.Acts =
                            i + 1 < args.Length
                                ? args[++i].Split(',', StringSplitOptions.RemoveEmptyEntries)
                                : throw new ArgumentException("--acts needs a list");
                        break;
                    default:
                        if (int.TryParse(a, NumberStyles.Integer, CultureInfo.InvariantCulture, out int ms))
                            o.HoldMs = ms;
                        else
                            throw new ArgumentException($"unknown option '{a}'");
                        break;
                }
            }
            return o;
        }
    }
}
