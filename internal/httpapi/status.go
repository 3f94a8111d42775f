package httpapi

import (
	"net/http"

	"marketplace/internal/market"
)

// codeStatus is the one place a code becomes an HTTP status (CONTRACT.md
// section 2); every surface, page and document reads it through Status.
var codeStatus = map[market.Code]int{
	market.CodeValidation:            http.StatusBadRequest,
	market.CodeShippingCostRequired:  http.StatusBadRequest,
	market.CodeUnauthorized:          http.StatusUnauthorized,
	market.CodeInvalidAgentKey:       http.StatusUnauthorized,
	market.CodeInvalidCredentials:    http.StatusUnauthorized,
	market.CodePaymentFailed:         http.StatusPaymentRequired,
	market.CodeSCARequired:           http.StatusPaymentRequired,
	market.CodePaymentMethodRequired: http.StatusPaymentRequired,
	market.CodeForbidden:             http.StatusForbidden,
	market.CodeInsufficientScope:     http.StatusForbidden,
	market.CodeAgentFrozen:           http.StatusForbidden,
	market.CodeOwnerNotVerified:      http.StatusForbidden,
	market.CodeSpendingLimitExceeded: http.StatusForbidden,
	market.CodeCategoryRestricted:    http.StatusForbidden,
	market.CodeAccountSuspended:      http.StatusForbidden,
	market.CodeCannotBuyOwnListing:   http.StatusForbidden,
	market.CodeApprovalRequired:      http.StatusAccepted,
	market.CodeRateLimited:           http.StatusTooManyRequests,
	market.CodeListingNotFound:       http.StatusNotFound,
	market.CodeNotFound:              http.StatusNotFound,
	market.CodeListingNotAvailable:   http.StatusConflict,
	market.CodeListingSold:           http.StatusConflict,
	market.CodePriceChanged:          http.StatusConflict,
	market.CodeMaxPriceExceeded:      http.StatusConflict,
	market.CodeDuplicateRequest:      http.StatusConflict,
	market.CodeActiveOfferExists:     http.StatusConflict,
	market.CodeMaxRoundsReached:      http.StatusConflict,
	market.CodeOfferExpired:          http.StatusConflict,
	market.CodeOfferNotAccepted:      http.StatusConflict,
	market.CodeInvalidState:          http.StatusConflict,
	market.CodeEmailTaken:            http.StatusConflict,
	market.CodeUsernameTaken:         http.StatusConflict,
	market.CodeOffersDisabled:        http.StatusUnprocessableEntity,
	market.CodeBelowMinimum:          http.StatusUnprocessableEntity,
	market.CodeListingRestricted:     http.StatusUnprocessableEntity,
	market.CodePayloadTooLarge:       http.StatusRequestEntityTooLarge,
	market.CodeMethodNotAllowed:      http.StatusMethodNotAllowed,
	market.CodeInternal:              http.StatusInternalServerError,
	market.CodeUnavailable:           http.StatusServiceUnavailable,
	market.CodeFeatureDisabled:       http.StatusServiceUnavailable,
}

// Status is the HTTP status a response carrying code answers with; an
// unknown code is a 500, as an internal error is.
func Status(code market.Code) int {
	if s, ok := codeStatus[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
