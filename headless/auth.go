package headless

import (
	"crypto/subtle"
	"net/http"
)

// tokenRequired is what a request without the server's token is told.
const tokenRequired = "a bearer token is required: send Authorization: Bearer <token>"

// BearerOK reports whether r carries "Authorization: Bearer <token>"
// (always, when token is empty), compared in constant time.
func BearerOK(r *http.Request, token string) bool {
	if token == "" {
		return true
	}
	return subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+token)) == 1
}

// RequireBearer serves next only the requests that carry token (BearerOK;
// every request, when token is empty). Any other is answered 401 with
// {"error": "..."}, on its headers, before its body is read, and its
// connection closed, however slowly the body trickles in.
func RequireBearer(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !BearerOK(r, token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ibid"`)
			refuse(w, http.StatusUnauthorized, tokenRequired)
			return
		}
		next.ServeHTTP(w, r)
	})
}
