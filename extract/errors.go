package extract

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// ErrorKind is the closed set of error categories the application knows how
// to present. Anything not classified counts as KindInternal.
type ErrorKind string

// Error kinds.
const (
	KindInvalid     ErrorKind = "invalid"
	KindNotFound    ErrorKind = "not_found"
	KindConflict    ErrorKind = "conflict"
	KindUnavailable ErrorKind = "unavailable"
	// KindUnauthorized is a request that did not say who it is from
	// (or said it wrongly); KindForbidden one whose role may not do it.
	KindUnauthorized ErrorKind = "unauthorized"
	KindForbidden    ErrorKind = "forbidden"
	KindInternal     ErrorKind = "internal"
)

// Error is the domain error: a kind plus a message that is safe to show to a
// user. Err, when set, carries the underlying cause for logs.
type Error struct {
	Kind    ErrorKind
	Message string
	Err     error
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error of the given kind with a formatted safe message.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Wrap builds an *Error of the given kind around a cause.
func Wrap(kind ErrorKind, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Err: err}
}

// KindOf returns the kind of err: the kind of the first *Error in its chain,
// or KindInternal.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// MessageOf returns the safe message of err, or a generic text for internal
// errors that carry no *Error.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// MaxNameLen bounds the names of documents, extractions, schemas and schema
// types, in characters.
const MaxNameLen = 200

// CheckName refuses a name longer than MaxNameLen characters; what says
// whose name it is ("document name", "extraction name").
func CheckName(what, name string) error {
	if n := utf8.RuneCountInString(name); n > MaxNameLen {
		return Errorf(KindInvalid, "the %s is %d characters long; at most %d are allowed", what, n, MaxNameLen)
	}
	return nil
}
