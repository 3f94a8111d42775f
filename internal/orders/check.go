package orders

import (
	"context"
	"errors"
	"fmt"
	"time"

	"marketplace/internal/market"
)

// CheckResult is a purchase dry run's answer (CONTRACT.md section 15).
type CheckResult struct {
	// Refusal is the error the purchase would give now: nil when it would
	// go through, APPROVAL_REQUIRED when it would wait for the owner.
	// PAYMENT_FAILED and SCA_REQUIRED are never predicted: only a charge
	// tells; nor is DUPLICATE_REQUEST, which depends on the idempotency key.
	Refusal *market.Error
	// Fees are what the purchase would charge; nil when the checks stopped
	// before they were known (the request, the listing, the price, shipping).
	Fees *Fees
	// Remaining is what is left now of each cap, the tighter of the
	// owner's and the key's, before this purchase.
	Remaining Caps
	// Unblock says what would change the answer.
	Unblock []Unblock
}

// Allowed reports whether the purchase would go through now.
func (r *CheckResult) Allowed() bool { return r.Refusal == nil }

// Unblock is one thing that would let the purchase through.
type Unblock struct {
	Action string // raise_limit, wait_for_reset, request_approval, add_payment_method, verify_identity, ...
	Detail string
	// LimitType names the cap (per_transaction, daily, weekly, monthly,
	// approval_threshold) for raise_limit and request_approval; Level whose
	// cap it is (owner, key).
	LimitType string
	Level     string
	// Amount is how many cents the cap (or maxPrice) would have to rise by.
	Amount *int64
	// Until is when the spending windows at fault have all reset.
	Until *time.Time
}

// errDryRun rolls the dry run's transaction back.
var errDryRun = errors.New("orders: dry run")

// Check is the purchase dry run: it runs the purchase path's checks
// (precheck, then authorize in a transaction it rolls back) so nothing is
// reserved, recorded or charged, and answers what the purchase would do
// now. A refusal is the result's Refusal, except VALIDATION_ERROR, which is
// returned as the error: a request the purchase cannot take is refused
// here too (400), as the published schema of both routes says.
func (s *Service) Check(ctx context.Context, b Buyer, in PurchaseInput) (*CheckResult, error) {
	su, err := s.purchaseSetup(ctx)
	if err != nil {
		return nil, err
	}
	res := &CheckResult{}
	var verdict error
	var a *authorized
	var st *standing
	now := s.clock.Now()
	err = s.store.InTx(ctx, func(tx Tx) error {
		if verdict = precheck(b, &in); verdict == nil {
			a, verdict = s.authorize(ctx, tx, b, &in, su, now)
		}
		if market.CodeOf(verdict) == market.CodeInternal {
			return verdict
		}
		if a != nil {
			st = a.standing
		}
		if st == nil && b.Actor.IsAgent() {
			var err error
			if st, err = spendStanding(ctx, tx, now, b.User.ID, b.Key, in.OfferID); err != nil {
				return err
			}
		}
		return errDryRun
	})
	if !errors.Is(err, errDryRun) {
		return nil, err
	}
	if market.CodeOf(verdict) == market.CodeValidation {
		return nil, verdict
	}
	if st != nil {
		res.Remaining = st.remaining
	}
	var amount int64
	if a != nil {
		f := a.draft.order.Fees
		res.Fees, amount = &f, f.TotalCharged
	}
	switch {
	case verdict != nil:
		res.Refusal = market.ErrorOf(verdict)
	case a != nil && a.approval:
		res.Refusal = market.Errorf(market.CodeApprovalRequired,
			"the purchase of %d cents is above the owner's approval threshold of %d cents: it would wait for the owner's approval",
			amount, a.threshold).WithDetails(map[string]any{"approval_threshold": a.threshold, "requested_amount": amount})
	}
	res.Unblock = unblock(res.Refusal, st, amount)
	return res, nil
}

// unblock is the advice for a refusal: specific caps and amounts where the
// refusal is about spending, the step that removes it otherwise.
func unblock(e *market.Error, st *standing, amount int64) []Unblock {
	if e == nil {
		return []Unblock{}
	}
	one := func(action, detail string) []Unblock { return []Unblock{{Action: action, Detail: detail}} }
	switch e.Code {
	case market.CodeSpendingLimitExceeded:
		if st != nil {
			return capAdvice(st, amount)
		}
	case market.CodeApprovalRequired:
		u := Unblock{Action: "request_approval", LimitType: "approval_threshold", Level: "owner",
			Detail: "purchase anyway: the order is queued as pending_approval until the owner approves it (GET /approvals); " +
				"or the owner raises or removes the approval threshold"}
		if st != nil && st.threshold != nil {
			by := amount - *st.threshold
			u.Amount = &by
			u.Detail = fmt.Sprintf("purchase anyway: the order is queued as pending_approval until the owner approves it "+
				"(GET /approvals); or the owner raises the approval threshold by %d cents (to %d) or removes it", by, amount)
		}
		return []Unblock{u}
	case market.CodeCategoryRestricted:
		return one("ask_owner", fmt.Sprintf("the owner's category restrictions block %v; only the owner can lift them "+
			"(PUT /spending-controls categoryRestrictions)", e.Details["category"]))
	case market.CodePaymentMethodRequired:
		return one("add_payment_method", "the owner adds a card (POST /payment-methods); agents cannot")
	case market.CodeOwnerNotVerified:
		return one("verify_identity", "the owner completes identity verification (POST /seller/connect and its onboarding link)")
	case market.CodeMaxPriceExceeded:
		if p, ok := e.Details["current_price"].(int64); ok {
			if m, ok := e.Details["max_price"].(int64); ok {
				by := p - m
				return []Unblock{{Action: "raise_max_price", Amount: &by,
					Detail: fmt.Sprintf("send maxPrice of at least %d cents (the price now), %d more", p, by)}}
			}
		}
	case market.CodePriceChanged:
		return one("update_expected_price", fmt.Sprintf("the price is now %v cents: read the listing again and send it as expectedPrice",
			e.Details["current_price"]))
	case market.CodeShippingCostRequired:
		return one("quote_shipping", "quote shipping for this listing and the address's ZIP code (POST /shipping/rates) and send the rate id")
	case market.CodeListingSold, market.CodeListingNotFound, market.CodeCannotBuyOwnListing:
		return one("choose_another_listing", "this listing cannot be bought by this owner")
	case market.CodeListingNotAvailable:
		return one("retry_later", "the listing is not on sale now (a checkout may hold it for up to 15 minutes, or it is held, archived or removed)")
	case market.CodeOfferNotAccepted, market.CodeOfferExpired, market.CodeNotFound: // NOT_FOUND: the offer
		return one("make_offer", "the offer cannot be bought with now: buy at the list price (no offerId) or make a new offer")
	case market.CodeAgentFrozen:
		return one("ask_owner", "the owner unfreezes the key (PATCH /agent-keys/{id}/unfreeze)")
	}
	return []Unblock{}
}

// capAdvice is, for each cap the purchase would pass, how much it would
// have to rise, and when waiting would do instead: once every window at
// fault has reset (a cap not at fault now cannot become so by waiting).
func capAdvice(st *standing, amount int64) []Unblock {
	out := []Unblock{}
	var until *time.Time
	waitHelps := true
	for _, c := range st.caps {
		if c.used+amount <= c.limit {
			continue
		}
		by := c.used + amount - c.limit
		who := "the owner raises their"
		if c.level == "key" {
			who = "the owner gives this key a higher"
		}
		out = append(out, Unblock{Action: "raise_limit", LimitType: c.kind, Level: c.level, Amount: &by,
			Detail: fmt.Sprintf("%s %s limit by %d cents (from %d to %d)", who, c.kind, by, c.limit, c.limit+by)})
		if c.resets == nil || amount > c.limit {
			waitHelps = false
			continue
		}
		if until == nil || c.resets.After(*until) {
			until = c.resets
		}
	}
	if waitHelps && until != nil {
		t := *until
		out = append(out, Unblock{Action: "wait_for_reset", Until: &t,
			Detail: "the spending windows at fault reset at " + t.Format(time.RFC3339) + " (UTC calendar windows); the purchase fits then if nothing else is spent"})
	}
	return out
}
