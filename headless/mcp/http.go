package mcp

import (
	"crypto/subtle"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Handler serves srv over MCP's streamable HTTP transport. With a token,
// every request must send "Authorization: Bearer <token>" (compared in
// constant time), as `ibid serve` asks; a request without it is refused
// with 401 before its body is read. The SDK refuses requests to a
// loopback address that name another host (DNS rebinding).
func Handler(srv *sdk.Server, token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ibid"`)
			w.Header().Set("Connection", "close")
			http.Error(w, "a bearer token is required: send Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}
