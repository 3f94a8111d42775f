package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"marketplace/internal/market"
)

// MaxBody is the largest JSON body accepted (photo uploads aside).
const MaxBody = 1 << 20

// Decode reads a JSON body into dst. Unknown fields are ignored; malformed
// JSON and wrong types are VALIDATION_ERROR naming the field; bodies over
// MaxBody are PAYLOAD_TOO_LARGE.
func Decode(r *http.Request, dst any) error {
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	return DecodeBytes(body, dst)
}

// ReadBody reads a request body of at most MaxBody bytes: a larger one is
// PAYLOAD_TOO_LARGE, one that cannot be read VALIDATION_ERROR on "body".
func ReadBody(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, market.Errorf(market.CodePayloadTooLarge, "the request body is larger than 1 MiB")
		}
		return nil, market.Invalid(market.FieldError{Field: "body", Message: "could not be read"})
	}
	return body, nil
}

// DecodeBytes is Decode on bytes already read; fuzz tests drive it.
func DecodeBytes(body []byte, dst any) error {
	trimmed := bytes.TrimSpace(body)
	// encoding/json reads null into a struct as "no change"; a body must be
	// an object.
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return market.Invalid(market.FieldError{Field: "body", Message: "a JSON object is required"})
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return market.Invalid(market.FieldError{Field: "body", Message: "must hold exactly one JSON value"})
	}
	return nil
}

func decodeError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return market.Invalid(market.FieldError{Field: "body", Message: "must be a JSON object"})
		}
		return market.Invalid(market.FieldError{Field: field, Message: "must be " + jsonKind(typeErr.Type.Kind().String(), typeErr.Value), AsSent: true})
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return market.Invalid(market.FieldError{Field: "body", Message: "is not valid JSON"})
	}
	var me *market.Error
	if errors.As(err, &me) {
		return me
	}
	return market.Invalid(market.FieldError{Field: "body", Message: "is not valid JSON: " + strings.TrimPrefix(err.Error(), "json: ")})
}

// jsonKind describes the expected JSON type of a Go kind in words.
func jsonKind(kind, got string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		if strings.HasPrefix(got, "number") {
			return "a whole number in range"
		}
		return "a whole number"
	case "bool":
		return "true or false"
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	}
	return "of another type"
}

// DecodeOptional is Decode for a body that may be left out: an empty body
// leaves dst as it is.
func DecodeOptional(r *http.Request, dst any) error {
	body, err := ReadBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	return DecodeBytes(body, dst)
}
