package api

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// The page at / (/ui/): static files embedded in the binary (ui/), no
// build step, nothing fetched from any other host. They need no key: the
// page asks for one and sends it as X-API-KEY on its calls (docs/ui.md).
// Every file is served with a strict Content-Security-Policy: scripts,
// styles and connections to logq's own origin only, no inline script, no
// framing.

//go:embed ui
var uiFiles embed.FS

// uiCSP is the page's Content-Security-Policy.
const uiCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

func (s *Server) uiHandler() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the embedded tree always has ui/
	}
	files := http.StripPrefix("/ui/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", uiCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		name := strings.TrimPrefix(r.URL.Path, "/ui/")
		if name == "" {
			name = "."
		}
		if _, err := fs.Stat(sub, name); err != nil {
			writeError(w, errorf(404, "notFound", "", "no such file: %s", clip(r.URL.Path, 200)))
			return
		}
		files.ServeHTTP(w, r)
	})
}

// handleRoot sends a browser to the page.
func handleRoot(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/ui/", http.StatusFound)
}
