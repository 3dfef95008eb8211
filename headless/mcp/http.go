package mcp

import (
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ibid-dev/ibid/headless"
)

// Handler serves srv over MCP's streamable HTTP transport. With a token,
// every request must send "Authorization: Bearer <token>", as `ibid
// serve` asks (headless.RequireBearer: a request without it is refused
// with 401 before its body is read). The SDK refuses requests to a
// loopback address that name another host (DNS rebinding).
func Handler(srv *sdk.Server, token string) http.Handler {
	return headless.RequireBearer(token, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
}
