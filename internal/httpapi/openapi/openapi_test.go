package openapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDocumentsLoad(t *testing.T) {
	for _, name := range []string{A, B} {
		doc, err := Load(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if doc.Info.Version != "1.0" || doc.OpenAPI != "3.0.3" {
			t.Errorf("%s: openapi %q version %q, want 3.0.3 and 1.0", name, doc.OpenAPI, doc.Info.Version)
		}
		raw, err := JSON(name)
		if err != nil {
			t.Fatalf("%s as JSON: %v", name, err)
		}
		var back struct {
			Paths map[string]any `json:"paths"`
		}
		if err := json.Unmarshal(raw, &back); err != nil || len(back.Paths) != doc.Paths.Len() {
			t.Errorf("%s: the JSON form lost paths (%d of %d): %v", name, len(back.Paths), doc.Paths.Len(), err)
		}
	}
}

const metaA = `"meta":{"requestId":"r1","timestamp":"2026-06-10T12:00:00Z"}`

func TestValidatorCheck(t *testing.T) {
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	health := `{"success":true,"data":{"status":"ok","version":"1"},` + metaA + `}`
	errBody := `{"success":false,"error":{"code":"VALIDATION_ERROR","message":"m","details":{"fields":[{"field":"email","message":"x"}]}},` + metaA + `}`
	jsonCT := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	tests := []struct {
		name           string
		method, path   string
		reqBody        string
		status         int
		respBody       string
		wantReq, wantR bool // errors expected
		undocumented   bool
	}{
		{name: "root twin of /api/v1/health", method: "GET", path: "/health", status: 200, respBody: health},
		{name: "root twin of the directory", method: "GET", path: "/", status: 200, respBody: health, wantR: true},
		{name: "health under /api/v1", method: "GET", path: "/api/v1/health", status: 200, respBody: health},
		{name: "undocumented status", method: "GET", path: "/api/v1/health", status: 418, respBody: health, wantR: true},
		{name: "wrong envelope", method: "GET", path: "/api/v1/health", status: 200, respBody: `{"success":true,"data":{}}`, wantR: true},
		{name: "Variant A meta under /v1", method: "GET", path: "/v1/account", status: 401,
			respBody: strings.Replace(errBody, "VALIDATION_ERROR", "UNAUTHORIZED", 1), wantR: true},
		{name: "unknown error code", method: "POST", path: "/api/v1/auth/login", reqBody: `{"email":"a@b.co","password":"x"}`,
			status: 400, respBody: strings.Replace(errBody, "VALIDATION_ERROR", "OOPS", 1), wantR: true},
		{name: "register without acceptedTerms", method: "POST", path: "/api/v1/auth/register",
			reqBody: `{"email":"a@b.co","password":"0123456789","displayName":"A"}`, status: 400, respBody: errBody, wantReq: true},
		{name: "register accepted", method: "POST", path: "/api/v1/auth/register",
			reqBody: `{"email":"a@b.co","password":"0123456789","displayName":"A","acceptedTerms":true,"extra":1}`, status: 400, respBody: errBody},
		{name: "unknown path", method: "GET", path: "/api/v1/nope", status: 404, undocumented: true},
		{name: "metrics are not on the API port", method: "GET", path: "/metrics", status: 404, undocumented: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.reqBody))
			header := jsonCT
			if tc.reqBody != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			reqErr, respErr := v.Check(req, []byte(tc.reqBody), tc.status, header, []byte(tc.respBody))
			var undoc ErrUndocumented
			if got := errors.As(respErr, &undoc); got != tc.undocumented {
				t.Fatalf("undocumented = %v, want %v (%v)", got, tc.undocumented, respErr)
			}
			if tc.undocumented {
				return
			}
			if (reqErr != nil) != tc.wantReq {
				t.Errorf("request error = %v, want error: %v", reqErr, tc.wantReq)
			}
			if (respErr != nil) != tc.wantR {
				t.Errorf("response error = %v, want error: %v", respErr, tc.wantR)
			}
		})
	}
}
