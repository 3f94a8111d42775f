package httpapi

import (
	"net/http"
	"testing"

	"marketplace/internal/market"
)

// Every code the domain can answer with has its own status: a code added
// to market without a row here would go out as a 500.
func TestEveryCodeHasAStatus(t *testing.T) {
	for _, c := range market.Codes() {
		if _, ok := codeStatus[c]; !ok {
			t.Errorf("%s has no HTTP status", c)
		}
	}
	if len(codeStatus) != len(market.Codes()) {
		t.Errorf("%d statuses for %d codes", len(codeStatus), len(market.Codes()))
	}
	for code, want := range map[market.Code]int{
		market.CodeValidation:       http.StatusBadRequest,
		market.CodeApprovalRequired: http.StatusAccepted,
		market.CodeListingSold:      http.StatusConflict,
		market.CodeUnavailable:      http.StatusServiceUnavailable,
		"NO_SUCH_CODE":              http.StatusInternalServerError,
	} {
		if got := Status(code); got != want {
			t.Errorf("Status(%s) = %d, want %d", code, got, want)
		}
	}
}
