package orders

import (
	"slices"
	"strings"
	"testing"

	"marketplace/internal/market"
)

// The input checks of disputes run before any store access, so a Service
// without a store is enough to see each one refuse.
func TestDisputeInputChecks(t *testing.T) {
	s := &Service{}
	user := market.Actor{Type: market.ActorUser, UserID: market.NewID()}
	admin := market.Actor{Type: market.ActorUser, UserID: market.NewID(), Admin: true}
	good := DisputeInput{OrderID: market.NewID(), Reason: "damaged", Description: "cracked"}
	id := market.NewID()
	amount := func(n int64) *int64 { return &n }
	cases := []struct {
		name string
		call func() error
		want []string
	}{
		{"no order, bad reason", func() error {
			_, err := s.OpenDispute(t.Context(), user, DisputeInput{Reason: "meh", Description: "x"})
			return err
		}, []string{"order_id", "reason"}},
		{"blank description", func() error {
			in := good
			in.Description = " \n\t"
			_, err := s.OpenDispute(t.Context(), user, in)
			return err
		}, []string{"description"}},
		{"description of 2001 characters", func() error {
			in := good
			in.Description = strings.Repeat("ß", MaxDisputeText+1)
			_, err := s.OpenDispute(t.Context(), user, in)
			return err
		}, []string{"description"}},
		{"nine photos", func() error {
			in := good
			for range MaxEvidencePhotos + 1 {
				in.PhotoIDs = append(in.PhotoIDs, market.NewID())
			}
			_, err := s.OpenDispute(t.Context(), user, in)
			return err
		}, []string{"evidence_photos"}},
		{"a foreign URL and a repeat", func() error {
			in := good
			p := market.NewID()
			in.PhotoIDs = []string{p, "", p}
			_, err := s.OpenDispute(t.Context(), user, in)
			return err
		}, []string{"evidence_photos[1]", "evidence_photos[2]"}},
		{"empty response", func() error {
			_, err := s.RespondDispute(t.Context(), user, id, DisputeReply{Response: ""})
			return err
		}, []string{"response"}},
		{"partial without amount", func() error {
			_, err := s.ResolveDispute(t.Context(), admin, id, DisputeDecision{Resolution: "partial_refund"})
			return err
		}, []string{"amount"}},
		{"amount with release", func() error {
			_, err := s.ResolveDispute(t.Context(), admin, id, DisputeDecision{Resolution: "release_seller", Amount: amount(5)})
			return err
		}, []string{"amount"}},
		{"zero amount", func() error {
			_, err := s.ResolveDispute(t.Context(), admin, id, DisputeDecision{Resolution: "partial_refund", Amount: amount(0)})
			return err
		}, []string{"amount"}},
		{"unknown resolution, long note", func() error {
			_, err := s.ResolveDispute(t.Context(), admin, id, DisputeDecision{Resolution: "split",
				Note: strings.Repeat("n", MaxResolutionNote+1)})
			return err
		}, []string{"note", "resolution"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			e := market.ErrorOf(err)
			if e.Code != market.CodeValidation {
				t.Fatalf("got %v, want VALIDATION_ERROR", err)
			}
			var got []string
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Fatalf("fields %v, want %v", got, c.want)
			}
		})
	}
	if _, err := s.ResolveDispute(t.Context(), user, id, DisputeDecision{Resolution: "refund_buyer"}); market.CodeOf(err) != market.CodeForbidden {
		t.Fatalf("a non-admin's resolve: %v, want FORBIDDEN", err)
	}
	if _, _, err := s.AdminDisputes(t.Context(), user, "", 10, 0); market.CodeOf(err) != market.CodeForbidden {
		t.Fatalf("a non-admin's list: %v, want FORBIDDEN", err)
	}
}
