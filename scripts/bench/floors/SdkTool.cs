// The second floor of the serving-speed bench: the official MCP SDK's stateless Streamable HTTP server with one bare
// tool that makes the same API request. What any server built on the SDK pays before its own work.
using System.ComponentModel;
using ModelContextProtocol.Server;

var builder = WebApplication.CreateBuilder(args);
builder.Logging.ClearProviders();
builder.Services.AddHttpClient("api", client =>
{
    client.BaseAddress = new Uri(Environment.GetEnvironmentVariable("FLOOR_API_URL")!.TrimEnd('/') + "/");
    client.DefaultRequestHeaders.Add("X-Api-Key", Environment.GetEnvironmentVariable("FLOOR_API_KEY"));
});
builder.Services.AddMcpServer().WithHttpTransport(options => options.Stateless = true).WithTools<BookTools>();
var app = builder.Build();
app.MapGet("/healthz", () => "ok");
app.MapMcp("/mcp");
app.Run();

[McpServerToolType]
public sealed class BookTools
{
    [McpServerTool(Name = "get_book"), Description("Gets a book.")]
    public static async Task<string> GetBook(IHttpClientFactory factory, int bookId, CancellationToken cancellationToken) =>
        await factory.CreateClient("api").GetStringAsync($"books/{bookId}", cancellationToken);
}
