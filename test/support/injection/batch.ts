/**
 * One console project holding many generated specs (`s<i>/Client/*.g.cs`, `s<i>/McpTools.g.cs`, namespaces
 * `S<i>.Client` and `S<i>`) and an inspector whose Main prints, as JSON, every type of the assembly with its
 * declared members and their attributes. Built once, run once.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PACKAGES } from '../../../src/index.js';

const run = promisify(execFile);

export const ASSEMBLY_NAME = 'InjectionBatch';

/** Prints the assembly's types as ASCII JSON: strings escape everything else as \uXXXX, lone surrogates included. */
const INSPECTOR = String.raw`#nullable enable
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Reflection;
using System.Text;

namespace InjectionInspector;

public static class Inspector
{
    private const BindingFlags Declared = BindingFlags.DeclaredOnly | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.Static;

    public static int Main()
    {
        var json = new StringBuilder("{\"types\":[");
        var first = true;
        foreach (var type in typeof(Inspector).Assembly.GetTypes().OrderBy(t => t.FullName, StringComparer.Ordinal))
        {
            if (!first) json.Append(',');
            first = false;
            WriteType(json, type);
        }
        json.Append("]}");
        Console.Out.Write(json.ToString());
        return 0;
    }

    private static void WriteType(StringBuilder json, Type type)
    {
        json.Append("{\"fullName\":").Append(Text(type.FullName));
        json.Append(",\"namespace\":").Append(Text(type.Namespace));
        json.Append(",\"name\":").Append(Text(type.Name));
        json.Append(",\"declaringType\":").Append(Text(type.DeclaringType?.FullName));
        json.Append(",\"kind\":").Append(Text(Kind(type)));
        json.Append(",\"isPublic\":").Append(type.IsPublic || type.IsNestedPublic ? "true" : "false");
        json.Append(",\"isStatic\":").Append(type.IsAbstract && type.IsSealed ? "true" : "false");
        json.Append(",\"attributes\":");
        WriteAttributes(json, type.GetCustomAttributesData());
        json.Append(",\"members\":[");
        var first = true;
        foreach (var member in type.GetMembers(Declared).OrderBy(m => m.MemberType).ThenBy(m => m.Name, StringComparer.Ordinal))
        {
            if (!first) json.Append(',');
            first = false;
            WriteMember(json, member);
        }
        json.Append("]}");
    }

    private static string Kind(Type type)
    {
        if (type.IsEnum) return "enum";
        if (type.IsInterface) return "interface";
        if (type.IsValueType) return "struct";
        if (typeof(Delegate).IsAssignableFrom(type)) return "delegate";
        return type.GetMethod("<Clone>$", Declared) is null ? "class" : "record";
    }

    private static void WriteMember(StringBuilder json, MemberInfo member)
    {
        json.Append("{\"kind\":").Append(Text(member.MemberType.ToString()));
        json.Append(",\"name\":").Append(Text(member.Name));
        json.Append(",\"isPublic\":").Append(IsPublic(member) ? "true" : "false");
        json.Append(",\"attributes\":");
        WriteAttributes(json, member.GetCustomAttributesData());
        if (member is MethodBase method)
        {
            json.Append(",\"isSpecialName\":").Append(method.IsSpecialName ? "true" : "false");
            json.Append(",\"parameters\":[");
            var first = true;
            foreach (var parameter in method.GetParameters())
            {
                if (!first) json.Append(',');
                first = false;
                json.Append("{\"name\":").Append(Text(parameter.Name)).Append(",\"type\":").Append(Text(parameter.ParameterType.ToString())).Append(",\"attributes\":");
                WriteAttributes(json, parameter.GetCustomAttributesData());
                json.Append('}');
            }
            json.Append(']');
        }
        if (member is PropertyInfo property) json.Append(",\"type\":").Append(Text(property.PropertyType.ToString()));
        if (member is FieldInfo field)
        {
            json.Append(",\"type\":").Append(Text(field.FieldType.ToString()));
            if (field.IsLiteral) json.Append(",\"constant\":").Append(Value(field.GetRawConstantValue()));
        }
        json.Append('}');
    }

    private static bool IsPublic(MemberInfo member) => member switch
    {
        MethodBase method => method.IsPublic,
        FieldInfo field => field.IsPublic,
        PropertyInfo property => property.GetAccessors(false).Length > 0,
        EventInfo e => e.AddMethod?.IsPublic == true,
        Type nested => nested.IsNestedPublic,
        _ => false,
    };

    private static void WriteAttributes(StringBuilder json, IList<CustomAttributeData> attributes)
    {
        json.Append('[');
        var first = true;
        foreach (var attribute in attributes)
        {
            if (!first) json.Append(',');
            first = false;
            json.Append("{\"type\":").Append(Text(attribute.AttributeType.FullName));
            json.Append(",\"args\":[").Append(string.Join(",", attribute.ConstructorArguments.Select(a => Value(a.Value)))).Append(']');
            json.Append(",\"named\":{").Append(string.Join(",", attribute.NamedArguments.Select(a => Text(a.MemberName) + ":" + Value(a.TypedValue.Value)))).Append("}}");
        }
        json.Append(']');
    }

    private static string Value(object? value) => value switch
    {
        null => "null",
        string text => Text(text),
        bool flag => flag ? "true" : "false",
        IEnumerable<CustomAttributeTypedArgument> items => "[" + string.Join(",", items.Select(i => Value(i.Value))) + "]",
        _ => Text(Convert.ToString(value, CultureInfo.InvariantCulture)),
    };

    private static string Text(string? text)
    {
        if (text is null) return "null";
        var json = new StringBuilder("\"");
        foreach (var c in text)
        {
            if (c >= ' ' && c < '\u007f' && c != '"' && c != '\\') json.Append(c);
            else json.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
        }
        return json.Append('"').ToString();
    }
}
`;

export interface AttributeInfo {
  readonly type: string;
  readonly args: unknown[];
  readonly named: Record<string, unknown>;
}

export interface ParameterInfo {
  readonly name: string;
  readonly type: string;
  readonly attributes: AttributeInfo[];
}

export interface MemberInfo {
  readonly kind: 'Constructor' | 'Event' | 'Field' | 'Method' | 'Property' | 'TypeInfo' | 'Custom' | 'NestedType' | 'All';
  readonly name: string;
  readonly isPublic: boolean;
  readonly attributes: AttributeInfo[];
  readonly isSpecialName?: boolean;
  readonly parameters?: ParameterInfo[];
  readonly type?: string;
  readonly constant?: unknown;
}

export interface TypeInfo {
  readonly fullName: string;
  readonly namespace: string | null;
  readonly name: string;
  readonly declaringType: string | null;
  readonly kind: 'enum' | 'interface' | 'struct' | 'delegate' | 'class' | 'record';
  readonly isPublic: boolean;
  readonly isStatic: boolean;
  readonly attributes: AttributeInfo[];
  readonly members: MemberInfo[];
}

/** The console project over `directory` (every `.cs` below it compiles), warnings as errors, XML docs checked. */
export async function writeBatchProject(directory: string, framework: string): Promise<void> {
  const project = [
    '<Project Sdk="Microsoft.NET.Sdk">',
    '  <PropertyGroup>',
    '    <OutputType>Exe</OutputType>',
    `    <TargetFramework>${framework}</TargetFramework>`,
    '    <Nullable>enable</Nullable>',
    '    <ImplicitUsings>disable</ImplicitUsings>',
    '    <TreatWarningsAsErrors>true</TreatWarningsAsErrors>',
    `    <AssemblyName>${ASSEMBLY_NAME}</AssemblyName>`,
    '    <RootNamespace>InjectionInspector</RootNamespace>',
    '    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>',
    // Doc comments are parsed, so malformed XML from the spec is an error (CS1570 and friends). The
    // runtime's public members and the httpClient/cancellationToken parameters have no docs by design.
    '    <GenerateDocumentationFile>true</GenerateDocumentationFile>',
    '    <NoWarn>$(NoWarn);CS1591;CS1573</NoWarn>',
    '  </PropertyGroup>',
    '  <ItemGroup>',
    ...PACKAGES.filter((p) => p.id === 'ModelContextProtocol').map((p) => `    <PackageReference Include="${p.id}" Version="${p.version}" />`),
    '  </ItemGroup>',
    '</Project>',
    '',
  ].join('\n');
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, `${ASSEMBLY_NAME}.csproj`), project);
  await writeFile(join(directory, 'Inspector.cs'), INSPECTOR);
}

export interface BuildResult {
  readonly ok: boolean;
  readonly output: string;
  readonly seconds: number;
}

/** `dotnet build` of the batch; no build servers are left running. */
export async function buildBatch(directory: string): Promise<BuildResult> {
  const started = performance.now();
  const args = ['build', directory, '-nologo', '-clp:NoSummary', '-v:q', '--disable-build-servers'];
  try {
    const { stdout, stderr } = await run('dotnet', args, { maxBuffer: 512 * 1024 * 1024, env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' } });
    return { ok: true, output: stdout + stderr, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message?: string };
    return { ok: false, output: (failure.stdout ?? '') + (failure.stderr ?? '') || String(failure.message), seconds: (performance.now() - started) / 1000 };
  }
}

/** Runs the built inspector and parses what it prints. */
export async function inspectBatch(directory: string, framework: string): Promise<TypeInfo[]> {
  const { stdout } = await run('dotnet', [join(directory, 'bin', 'Debug', framework, `${ASSEMBLY_NAME}.dll`)], { maxBuffer: 512 * 1024 * 1024, env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' } });
  return (JSON.parse(stdout) as { types: TypeInfo[] }).types;
}

/** Every `error`/`warning` line of the build output, once each. */
export function diagnosticLines(output: string): string[] {
  return [...new Set(output.split(/\r?\n/).map((l) => l.trim()).filter((l) => /: (error|warning) [A-Z]+\d+/.test(l)))];
}

/** `path(line,col): severity CODE: message` */
export function parseLocation(line: string): { file: string; line: number } | undefined {
  const match = /^(.+?)\((\d+),\d+\): (?:error|warning) /.exec(line);
  return match ? { file: match[1] ?? '', line: Number(match[2]) } : undefined;
}

/** The source lines around a diagnostic, long lines cut, for failure messages. */
export async function sourceExcerpt(file: string, line: number, context = 1): Promise<string> {
  try {
    const lines = (await readFile(file, 'utf8')).split('\n');
    const from = Math.max(0, line - 1 - context);
    return lines
      .slice(from, line + context)
      .map((text, i) => `${String(from + i + 1).padStart(5)}| ${JSON.stringify(text.length > 300 ? text.slice(0, 300) + '…' : text).slice(1, -1)}`)
      .join('\n');
  } catch {
    return '';
  }
}
