package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/kgstudio/kgstudio/handlers"
)

// 100 wrong sign-ins from one address: after the first five each waits
// longer than the last (a second at first), and tries in the wait are
// answered 429 with Retry-After, unchecked; wrong bearer tokens count the
// same. The right token is never refused. The check does not time the run: at most ten of the hundred are
// checked, which at one a second or slower is under ten per second.
func TestSignIn_WrongTokensSlowed(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-never-shown"
	srv := tokenServer(t, handlers.Config{Token: token})
	checked, slowed := 0, 0
	for i := range 100 {
		var resp *http.Response
		if i%2 == 0 {
			resp = do(t, "POST", srv.URL+"/login", url.Values{"token": {"guess-" + strconv.Itoa(i)}}.Encode(), nil)
		} else {
			resp = do(t, "GET", srv.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer guess-" + strconv.Itoa(i)})
		}
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			checked++
		case http.StatusTooManyRequests:
			slowed++
			if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
				t.Fatalf("429 without a Retry-After of a second or more: %q", resp.Header.Get("Retry-After"))
			}
		default:
			t.Fatalf("attempt %d: status %d", i, resp.StatusCode)
		}
	}
	if checked < 5 || checked > 10 || slowed < 90 {
		t.Fatalf("of 100 wrong tokens %d were checked and %d slowed", checked, slowed)
	}
	// The right token is never refused: a correct client behind the same
	// address (a proxy, a client polling with a stale token) goes on while
	// the wrong ones wait, by bearer and by the sign-in form. Its success
	// clears the address's count; the stale token's own count stays, so
	// the stale client is still slowed.
	refused, staleSlowed := 0, 0
	for range 21 {
		if resp := do(t, "GET", srv.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer stale-token"}); resp.StatusCode == http.StatusTooManyRequests {
			staleSlowed++
		}
		if resp := do(t, "GET", srv.URL+"/api/documents", "", map[string]string{"Authorization": "Bearer " + token}); resp.StatusCode != http.StatusOK {
			refused++
		}
	}
	if refused > 0 {
		t.Fatalf("the right token was refused %d times of 21 while wrong ones came from its address", refused)
	}
	if staleSlowed < 10 {
		t.Fatalf("a stale token sent 21 times was slowed %d times", staleSlowed)
	}
	if resp := do(t, "POST", srv.URL+"/login", url.Values{"token": {token}}.Encode(), nil); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in with the right token: status %d", resp.StatusCode)
	}
}

// Signing out revokes the session: the old cookie no longer opens a page;
// two sign-ins get two different cookies.
func TestSignIn_SignOutRevokes(t *testing.T) {
	t.Parallel()
	const token = "s3cret-token-never-shown"
	srv := tokenServer(t, handlers.Config{Token: token})
	signIn := func() string {
		resp := do(t, "POST", srv.URL+"/login", url.Values{"token": {token}}.Encode(), nil)
		for _, c := range resp.Cookies() {
			if c.Name == "kgstudio_session" && c.Value != "" {
				return c.Name + "=" + c.Value
			}
		}
		t.Fatalf("sign-in set no session cookie (status %d)", resp.StatusCode)
		return ""
	}
	first, second := signIn(), signIn()
	if first == second || strings.Contains(first, token) {
		t.Fatalf("two sign-ins gave %q and %q", first, second)
	}
	page := func(cookie string) int {
		return do(t, "GET", srv.URL+"/documents", "", map[string]string{"Cookie": cookie}).StatusCode
	}
	if page(first) != http.StatusOK || page(second) != http.StatusOK {
		t.Fatal("a fresh session does not open a page")
	}
	if resp := do(t, "POST", srv.URL+"/logout", "", map[string]string{"Cookie": first}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: status %d", resp.StatusCode)
	}
	if got := page(first); got != http.StatusUnauthorized {
		t.Fatalf("the signed-out cookie opens a page: status %d", got)
	}
	if page(second) != http.StatusOK {
		t.Fatal("signing out one session ended another")
	}
}
