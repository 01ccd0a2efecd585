// The first floor of the serving-speed bench: the least an ASP.NET Core endpoint does to answer a tools/call the way an
// MCP server does. It parses the JSON-RPC request, makes the one API request through IHttpClientFactory and writes the
// answer as one SSE event. No MCP SDK, no checks, no logging: what any .NET server of the API pays.
using System.Text.Json;

var builder = WebApplication.CreateBuilder(args);
builder.Logging.ClearProviders();
builder.Services.AddHttpClient("api", client =>
{
    client.BaseAddress = new Uri(Environment.GetEnvironmentVariable("FLOOR_API_URL")!.TrimEnd('/') + "/");
    client.DefaultRequestHeaders.Add("X-Api-Key", Environment.GetEnvironmentVariable("FLOOR_API_KEY"));
});
var app = builder.Build();
app.MapGet("/healthz", () => "ok");
app.MapPost("/mcp", async (HttpContext context, IHttpClientFactory factory) =>
{
    using var request = await JsonDocument.ParseAsync(context.Request.Body, cancellationToken: context.RequestAborted);
    var bookId = request.RootElement.GetProperty("params").GetProperty("arguments").GetProperty("bookId").GetInt32();
    var text = await factory.CreateClient("api").GetStringAsync($"books/{bookId}", context.RequestAborted);
    var answer = new { result = new { content = new[] { new { type = "text", text } } }, jsonrpc = "2.0", id = request.RootElement.GetProperty("id").GetInt32() };
    context.Response.ContentType = "text/event-stream";
    await context.Response.WriteAsync($"event: message\ndata: {JsonSerializer.Serialize(answer)}\n\n", context.RequestAborted);
});
app.Run();
