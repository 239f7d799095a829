package handlers

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/labstack/echo/v4"
)

// A write that fails because the disk is full answers 507 and says so,
// not 500 "internal error".
func TestErrorHandler_DiskFull(t *testing.T) {
	h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	e := echo.New()
	req := httptest.NewRequest(http.MethodPost, "/api/documents", nil)
	rec := httptest.NewRecorder()
	h.ErrorHandler(fmt.Errorf("save document: %w", syscall.ENOSPC), e.NewContext(req, rec))
	var body struct {
		Error  string `json:"error"`
		Status int    `json:"status"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusInsufficientStorage || body.Status != 507 || !strings.Contains(body.Error, "disk is full") {
		t.Fatalf("status %d, body %+v", rec.Code, body)
	}
}
