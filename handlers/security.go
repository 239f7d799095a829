package handlers

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy allows scripts, styles and connections from this
// origin only: no inline script or style, no framing. The exceptions are
// the two style sheets the vendored graph library (force-graph 1.52.0)
// inserts for its canvas and tooltips, allowed by their SHA-256 (and that
// of the empty sheet it inserts before filling it) so the library stays
// unmodified; a new version of it needs its hashes here (the
// browser tests report what the policy blocks). Scripts may still set
// styles through the DOM, as the library does. Workers (the graph view's
// layout) come from this origin only.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; " +
	"style-src 'self' 'sha256-jtRRMYY2VbEXuBKbHvqM1/fPT8vazFrEooXdvwUK4y8=' 'sha256-9xjtvxMT1ApHlgn9ohbh2FNfvK5Tqtzy94BjfXBeMSY=' " +
	"'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='; " +
	"img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// sessionCookie is the cookie the login form sets when a token is required.
const sessionCookie = "kgstudio_session"

// secureHeaders sets the headers every response carries.
func secureHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		hd := c.Response().Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

// allowedHosts lists the host names (no port) a request's Host may carry:
// the loopback names, the bind address unless it is unspecified (then the
// machine's own interface addresses), and the host of the public URL.
func allowedHosts(cfg Config) map[string]bool {
	hosts := map[string]bool{"localhost": true, "127.0.0.1": true, "::1": true}
	if cfg.BindAddr != "" {
		host, _, err := net.SplitHostPort(cfg.BindAddr)
		if err != nil {
			host = cfg.BindAddr
		}
		host = strings.Trim(host, "[]")
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			if addrs, err := net.InterfaceAddrs(); err == nil {
				for _, a := range addrs {
					if n, ok := a.(*net.IPNet); ok {
						hosts[n.IP.String()] = true
					}
				}
			}
		} else {
			hosts[strings.ToLower(host)] = true
		}
	}
	if cfg.PublicURL != "" {
		if u, err := url.Parse(cfg.PublicURL); err == nil && u.Hostname() != "" {
			hosts[strings.ToLower(u.Hostname())] = true
		}
	}
	return hosts
}

// requestHost is the host name of a Host header, lower case, without port
// or brackets.
func requestHost(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

// checkHost refuses requests whose Host is not one of this server's names,
// so a rebound DNS name cannot reach the API from a browser.
func checkHost(hosts map[string]bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !hosts[requestHost(c.Request().Host)] {
				return echo.NewHTTPError(http.StatusMisdirectedRequest, "unknown host: this server answers to its bind address, localhost and its public URL")
			}
			return next(c)
		}
	}
}

// safeMethod reports whether a method never changes state.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// sameOrigin refuses state-changing requests a browser sends from another
// site. A browser says where a request comes from with Sec-Fetch-Site (or,
// older ones, Origin, which must then name this server as the request or
// the public URL does); a request with neither header is not sent by a
// browser on behalf of a page (curl, scripts, Go's http client) and passes.
func sameOrigin(publicURL string) echo.MiddlewareFunc {
	public := ""
	if u, err := url.Parse(publicURL); err == nil && publicURL != "" {
		public = u.Host
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			if safeMethod(r.Method) || crossSiteAllowed(r, public) {
				return next(c)
			}
			return echo.NewHTTPError(http.StatusForbidden, "cross-site request refused: changes must come from this site's own pages")
		}
	}
}

// crossSiteAllowed applies sameOrigin's rule to one request.
func crossSiteAllowed(r *http.Request, publicHost string) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default: // cross-site, same-site (another port or subdomain)
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // includes "null"
	}
	return strings.EqualFold(u.Host, r.Host) || (publicHost != "" && strings.EqualFold(u.Host, publicHost))
}

// equalSecret compares two secrets in constant time.
func equalSecret(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// rightBearer reports, in constant time, whether an Authorization header
// carries the token.
func (h *Handler) rightBearer(auth string) bool {
	scheme, tok, ok := strings.Cut(auth, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && equalSecret(strings.TrimSpace(tok), h.cfg.Token)
}

// bearerToken is the credential an Authorization header carries.
func bearerToken(auth string) string {
	_, tok, _ := strings.Cut(auth, " ")
	return strings.TrimSpace(tok)
}

// tooMany answers 429 to a sender of wrong tokens, or to a wrong
// credential cred, while it must wait.
func (h *Handler) tooMany(c echo.Context, cred string) (bool, error) {
	wait := h.signIn.wait(clientAddr(c.Request()), cred)
	if wait <= 0 {
		return false, nil
	}
	secs := int(wait.Seconds()) + 1
	c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
	return true, echo.NewHTTPError(http.StatusTooManyRequests, fmt.Sprintf("too many wrong tokens from this address: try again in %d s", secs))
}

// safeReturn returns raw when it is a path on this site (a leading single
// slash, no scheme or host, no backslash or control character), else def.
func safeReturn(raw, def string) string {
	if raw == "" || raw[0] != '/' || strings.HasPrefix(raw, "//") {
		return def
	}
	for _, r := range raw {
		if r == '\\' || unicode.IsControl(r) {
			return def
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return def
	}
	return raw
}
