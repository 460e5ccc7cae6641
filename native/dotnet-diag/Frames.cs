// Naming the frames of an event's stack. EventPipe records each event's stack as return addresses
// (the nettrace stack block); names come from the runtime's own method events: MethodLoadVerbose
// (JIT keyword) for code compiled while the session runs, and the rundown's MethodDCStopVerbose
// for code compiled before it (a short second session stopped at once:
// https://learn.microsoft.com/dotnet/fundamentals/diagnostics/runtime-loader-binder-events and
// the rundown provider, Microsoft-Windows-DotNETRuntimeRundown). Addresses in no managed method
// (the runtime itself, precompiled code without events) are named by the file /proc/PID/maps maps
// there: `libcoreclr.so+0x…`.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Reflection;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;

namespace CdbHarness.Diag;

internal sealed class FrameNamer
{
    private readonly int pid;
    private readonly object gate = new();
    private readonly Dictionary<long, string> modules = new();
    private ulong[] starts = Array.Empty<ulong>();
    private ulong[] ends = Array.Empty<ulong>();
    private (long module, string method)[] names = Array.Empty<(long, string)>();
    private readonly List<(ulong start, ulong end, (long module, string method) name)> added = new();
    private (ulong start, ulong end, ulong loadBase, string file)[] maps = Array.Empty<(ulong, ulong, ulong, string)>();
    private long mapsReadAt = long.MinValue;

    public FrameNamer(int pid) => this.pid = pid;

    public void OnModule(ModuleLoadUnloadTraceData data)
    {
        string path = data.ModuleILPath;
        string name = Path.GetFileNameWithoutExtension(path.Length > 0 ? path : data.ModuleNativePath);
        lock (gate)
            modules[data.ModuleID] = name;
    }

    public void OnMethod(MethodLoadUnloadVerboseTraceData data)
    {
        // The module is named when the frame is: the rundown lists a module after its methods.
        string ns = data.MethodNamespace;
        string full = ns.Length > 0 ? ns + "." + data.MethodName : data.MethodName;
        ulong start = data.MethodStartAddress;
        lock (gate)
            added.Add((start, start + (ulong)data.MethodSize, (data.ModuleID, full)));
    }

    // Precompiled (ReadyToRun) methods first used after the session started have no load event,
    // only R2RGetEntryPoint (CompilationDiagnostic keyword): an entry point, no size. A frame in
    // such code belongs to the nearest entry point at or below it: a method on a stack was entered,
    // so its own entry point is known, and no other method starts inside it.
    private readonly SortedList<ulong, string> entries = new();
    private const ulong MaxMethodBytes = 1 << 20;

    public void OnR2REntry(R2RGetEntryPointTraceData data)
    {
        string ns = data.MethodNamespace;
        string full = ns.Length > 0 ? ns + "." + data.MethodName : data.MethodName;
        lock (gate)
            entries[unchecked((ulong)data.EntryPoint)] = full;
    }

    private string? EntryName(ulong ip)
    {
        var keys = entries.Keys;
        int lo = 0, hi = keys.Count - 1, found = -1;
        while (lo <= hi)
        {
            int mid = (lo + hi) / 2;
            if (keys[mid] <= ip) { found = mid; lo = mid + 1; }
            else hi = mid - 1;
        }
        return found >= 0 && ip - keys[found] < MaxMethodBytes ? entries.Values[found] : null;
    }

    /** The name of the code at `ip`: `module!Namespace.Type.Method`, `file+0x…` or `0x…`. */
    public string Name(ulong ip)
    {
        lock (gate)
        {
            if (added.Count > 0)
                Merge();
            int at = Array.BinarySearch(starts, ip);
            if (at < 0)
                at = ~at - 1;
            // Tiered compilation puts a method's newer code after older ranges: the last start at
            // or before ip that still contains it wins.
            for (int i = at; i >= 0 && i > at - 4; i--)
            {
                if (ip >= starts[i] && ip < ends[i])
                {
                    var (module, method) = names[i];
                    return modules.TryGetValue(module, out var m) && m.Length > 0 ? m + "!" + method : method;
                }
            }
        }
        string mapped = MappedName(ip);
        if (!mapped.StartsWith("0x", StringComparison.Ordinal))
            return mapped;
        lock (gate)
            return EntryName(ip) ?? mapped;
    }

    private void Merge()
    {
        var all = new List<(ulong start, ulong end, (long, string) name)>(starts.Length + added.Count);
        for (int i = 0; i < starts.Length; i++)
            all.Add((starts[i], ends[i], names[i]));
        all.AddRange(added);
        added.Clear();
        all.Sort((a, b) => a.start.CompareTo(b.start));
        starts = new ulong[all.Count];
        ends = new ulong[all.Count];
        names = new (long, string)[all.Count];
        for (int i = 0; i < all.Count; i++)
            (starts[i], ends[i], names[i]) = all[i];
    }

    private string MappedName(ulong ip)
    {
        var found = FindMapped(ip);
        if (found is null && Environment.TickCount64 - mapsReadAt > 1000)
        {
            ReadMaps();
            found = FindMapped(ip);
        }
        return found is null
            ? Program.Hex((long)ip, 0)
            : found.Value.file + "+" + Program.Hex((long)(ip - found.Value.loadBase), 0);
    }

    private (ulong loadBase, string file)? FindMapped(ulong ip)
    {
        foreach (var (start, end, loadBase, file) in maps)
        {
            if (ip >= start && ip < end)
                return (loadBase, file);
        }
        return null;
    }

    // 7f1b3a000000-7f1b3a200000 r-xp 00000000 08:01 1234  /usr/share/dotnet/shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so
    private void ReadMaps()
    {
        mapsReadAt = Environment.TickCount64;
        var list = new List<(ulong, ulong, ulong, string)>();
        var baseOf = new Dictionary<string, ulong>();
        try
        {
            foreach (string line in File.ReadLines($"/proc/{pid}/maps"))
            {
                int slash = line.IndexOf('/');
                int dash = line.IndexOf('-');
                int space = line.IndexOf(' ');
                if (slash < 0 || dash < 0 || space < dash)
                    continue;
                ulong start = ulong.Parse(line.AsSpan(0, dash), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
                ulong end = ulong.Parse(line.AsSpan(dash + 1, space - dash - 1), NumberStyles.HexNumber, CultureInfo.InvariantCulture);
                string file = Path.GetFileName(line.Substring(slash));
                // Offsets count from the file's first mapping (its load base), as `module+0x…` does.
                if (!baseOf.TryGetValue(file, out var loadBase))
                    baseOf[file] = loadBase = start;
                list.Add((start, end, loadBase, file));
            }
        }
        catch (IOException) { }
        catch (UnauthorizedAccessException) { }
        maps = list.ToArray();
    }

    /** The return addresses EventPipe captured for this event, top first (none when it has none). */
    public static unsafe ulong[] StackOf(TraceEvent data)
    {
        // TraceEvent hands EventPipe stacks to its own stack machinery as an ETW extended data item
        // (EVENT_HEADER_EXT_TYPE_STACK_TRACE64 = 6; the EVENT_RECORD layout is Windows' evntcons.h:
        // header 80 bytes, buffer context 4, ExtendedDataCount at 84, ExtendedData at 88). It has
        // no public accessor for it outside TraceLog, whose real-time mode holds events back.
        var record = (byte*)Pointer.Unbox(EventRecordField.GetValue(data)!);
        if (record == null)
            return Array.Empty<ulong>();
        ushort count = *(ushort*)(record + 84);
        byte* items = *(byte**)(record + 88);
        for (int i = 0; i < count && items != null; i++)
        {
            byte* item = items + i * 16;
            ushort type = *(ushort*)(item + 2);
            ushort size = *(ushort*)(item + 6);
            byte* ptr = *(byte**)(item + 8);
            if (ptr == null)
                continue;
            if (type == 6 && size >= 8)
            {
                int n = (size - 8) / 8;
                var ips = new ulong[n];
                for (int k = 0; k < n; k++)
                    ips[k] = *(ulong*)(ptr + 8 + k * 8);
                return ips;
            }
            if (type == 5 && size >= 8)
            {
                int n = (size - 8) / 4;
                var ips = new ulong[n];
                for (int k = 0; k < n; k++)
                    ips[k] = *(uint*)(ptr + 8 + k * 4);
                return ips;
            }
        }
        return Array.Empty<ulong>();
    }

    private static readonly FieldInfo EventRecordField =
        typeof(TraceEvent).GetField("eventRecord", BindingFlags.NonPublic | BindingFlags.Instance)
        ?? throw new MissingFieldException("TraceEvent.eventRecord");
}
