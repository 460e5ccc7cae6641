// The `storm` mode of the CLR test program (see Program.cs): managed exceptions thrown and caught
// on many threads, as fast as the runtime allows or paced, for watch's exception-rate benchmark
// (bench/) and its "none lost" check. Each thread also does a fixed unit of plain work between
// throws, so the program's throughput (work units per second) can be compared watched and
// unwatched. Prints, at the end:
//   storm thrown=<total throws> work=<total work units> ms=<elapsed> threads=<n> cpu=<ms>
// (cpu: the process's CPU time over the storm alone, every thread's: the runtime's too).
// --seconds S ends after S seconds (default 10); -n N ends after N throws in all (0: no limit);
// --rate R paces all threads together at R throws per second (0: unpaced); --threads T (default 4);
// --work N iterations of a small hash loop per unit (default 200; 0 = throws only);
// --busy (with --rate): a thread ahead of its schedule does work units instead of sleeping, so the
// program is CPU-bound with throws at the paced rate inside (a service's shape, not a storm's).
using System;
using System.Diagnostics;
using System.Threading;

namespace CdbHarness.Targets;

/// <summary>The storm's own exception type, so a watch can tell storm throws from the others.</summary>
public sealed class StormException : Exception
{
    public StormException(string message)
        : base(message) { }
}

internal static class Storm
{
    private static long thrown;
    private static long work;

    public static int Run(Program.Options opts)
    {
        int threads = Math.Max(1, opts.Threads);
        long limit = opts.Ticks;
        double seconds = opts.Seconds > 0 ? opts.Seconds : 10;
        var cpuAtStart = Process.GetCurrentProcess().TotalProcessorTime;
        var clock = Stopwatch.StartNew();
        var workers = new Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            int id = t;
            workers[t] = new Thread(() => Worker(id, threads, limit, seconds, opts.Rate, opts.Work, opts.Busy, clock))
            {
                Name = $"storm-{id}",
            };
            workers[t].Start();
        }
        foreach (var w in workers)
            w.Join();
        Program.Say(
            $"storm thrown={Interlocked.Read(ref thrown)} work={Interlocked.Read(ref work)} ms={clock.ElapsedMilliseconds} threads={threads} cpu={(long)(Process.GetCurrentProcess().TotalProcessorTime - cpuAtStart).TotalMilliseconds}"
        );
        if (opts.HoldMs > 0)
        {
            Program.Say($"holding {opts.HoldMs}");
            Thread.Sleep(opts.HoldMs);
        }
        return 0;
    }

    private static void Worker(int id, int threads, long limit, double seconds, int rate, int workIterations, bool busy, Stopwatch clock)
    {
        // Paced: this thread's share of the rate, as a schedule of due times.
        double perThreadInterval = rate > 0 ? threads * 1000.0 / rate : 0;
        long mine = 0;
        uint hash = (uint)id;
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            if (perThreadInterval > 0)
            {
                double due = mine * perThreadInterval;
                double now = clock.Elapsed.TotalMilliseconds;
                if (now < due && busy)
                {
                    hash = Unit(hash, workIterations);
                    continue;
                }
                if (now < due)
                {
                    Thread.Sleep(TimeSpan.FromMilliseconds(Math.Min(due - now, 50)));
                    continue;
                }
            }
            if (limit > 0 && Interlocked.Increment(ref thrown) > limit)
            {
                Interlocked.Decrement(ref thrown);
                break;
            }
            try
            {
                Throw(id, mine);
            }
            catch (StormException)
            {
                if (limit == 0)
                    Interlocked.Increment(ref thrown);
            }
            mine++;
            hash = Unit(hash, workIterations);
        }
        if (hash == 42)
            Program.Say("unlikely");
    }

    /// <summary>One unit of plain work, counted.</summary>
    private static uint Unit(uint hash, int iterations)
    {
        for (int i = 0; i < iterations; i++)
            hash = hash * 16777619u ^ (uint)i;
        Interlocked.Increment(ref work);
        return hash;
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static void Throw(int thread, long n) => throw new StormException($"storm {thread}:{n}");
}
