package handlers

import (
	"fmt"

	"github.com/labstack/echo/v4"
)

// retryVersion makes a version that asks the model again for the failed
// and unparsed chunks of this one, starts it and shows it.
func (h *Handler) retryVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	nv, err := h.appOf(c).Runs.Retry(c.Request().Context(), v)
	if err != nil {
		return err
	}
	h.appOf(c).Runs.Start(nv)
	return redirectFlash(c, fmt.Sprintf("/versions/%d", nv.ID), fmt.Sprintf("%s retries the failed chunks of %s.", nv.Label(), v.Label()), false)
}

// resumeVersion runs a failed or canceled version again, keeping its
// finished chunks.
func (h *Handler) resumeVersion(c echo.Context) error {
	v, err := h.versionParam(c)
	if err != nil {
		return err
	}
	if err := h.appOf(c).Runs.ResumeFailed(c.Request().Context(), v); err != nil {
		return err
	}
	return redirectFlash(c, fmt.Sprintf("/versions/%d", v.ID), fmt.Sprintf("%s resumed after %d of %d chunks.", v.Label(), v.ChunksDone, v.ChunksTotal), false)
}
