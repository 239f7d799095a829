package handlers

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/kgstudio/kgstudio/app"
)

// enterHeavy admits the request as a heavy one (see app.Gate) for as long
// as the handler runs: call release when it returns. The request's
// context then holds the slot, so the app methods it calls take no other.
// A refusal (the server is busy: 503) tells the client when to try again
// in Retry-After.
func (h *Handler) enterHeavy(c echo.Context) (release func(), err error) {
	ctx, release, err := h.appOf(c).Heavy().Enter(c.Request().Context())
	if err != nil {
		busy(c, err)
		return nil, err
	}
	c.SetRequest(c.Request().WithContext(ctx))
	return release, nil
}

// busy sets Retry-After on the response when err says the server is too
// busy for a heavy request.
func busy(c echo.Context, err error) {
	if app.IsBusy(err) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(app.BusyRetryAfter/time.Second)))
	}
}
