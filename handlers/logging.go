package handlers

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"
)

func slog_group(c echo.Context) slog.Attr {
	r := c.Request()
	return slog.Group("request", slog.String("method", r.Method), slog.String("path", r.URL.Path))
}

// RequestLogger logs one line per request with slog.
func RequestLogger(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			r := c.Request()
			level := slog.LevelInfo
			if c.Response().Status >= 500 {
				level = slog.LevelError
			}
			log.LogAttrs(r.Context(), level, "http",
				slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.Int("status", c.Response().Status), slog.Int64("bytes", c.Response().Size),
				slog.Duration("duration", time.Since(start)))
			return nil
		}
	}
}
