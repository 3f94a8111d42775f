package openapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Validator checks HTTP exchanges against the published documents: /v1 paths
// against B, everything else against A.
type Validator struct {
	a, b routers.Router
}

// NewValidator loads both documents.
func NewValidator() (*Validator, error) {
	// Pages for people are described as strings; kin-openapi only needs to
	// know it may read them as text.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	// Photos travel as raw image bytes, documented as binary strings.
	for _, ct := range []string{"image/jpeg", "image/png", "image/webp"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
	v := &Validator{}
	for name, dst := range map[string]*routers.Router{A: &v.a, B: &v.b} {
		doc, err := Load(name)
		if err != nil {
			return nil, err
		}
		if *dst, err = gorillamux.NewRouter(doc); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return v, nil
}

// rootAliases are root paths served as twins of their /api/v1 routes; the
// document describes them once, under /api/v1.
var rootAliases = map[string]string{"/": "/api/v1/", "/health": "/api/v1/health", "/health/deep": "/api/v1/health/deep"}

// ErrUndocumented is returned for an exchange whose operation no document
// describes.
type ErrUndocumented struct{ Method, Path string }

func (e ErrUndocumented) Error() string {
	return fmt.Sprintf("%s %s is not described by the OpenAPI documents", e.Method, e.Path)
}

// Check validates a request (reqErr) and its response (respErr). The request
// must carry its body in reqBody, since it has already been sent.
func (v *Validator) Check(req *http.Request, reqBody []byte, status int, header http.Header, respBody []byte) (reqErr, respErr error) {
	r := req.Clone(context.Background())
	if twin, ok := rootAliases[r.URL.Path]; ok {
		r.URL.Path = twin
	}
	router := v.a
	if strings.HasPrefix(r.URL.Path, "/v1/") {
		router = v.b
	}
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := router.FindRoute(r)
	if err != nil {
		return ErrUndocumented{Method: req.Method, Path: req.URL.Path}, ErrUndocumented{Method: req.Method, Path: req.URL.Path}
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	reqErr = openapi3filter.ValidateRequest(context.Background(), in)
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: header, Options: opts}
	out.SetBodyBytes(respBody)
	respErr = openapi3filter.ValidateResponse(context.Background(), out)
	return reqErr, respErr
}
