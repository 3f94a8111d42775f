package checkouts

import (
	"context"
	"errors"
	"strings"

	"marketplace/internal/market"
	"marketplace/internal/orders"
)

// The payment handlers. HandlerCard charges a card the agent platform
// delegated to the processor (ACP's delegate_payment: a vt_ token of the
// sandbox vault, or a Stripe shared payment token); HandlerSavedCard the
// agent key owner's default saved card.
const (
	HandlerCard      = "card_tokenized"
	HandlerSavedCard = "saved_payment_method"
)

// Handlers are the payment handlers open to b: a delegated card for
// everyone, the saved card for an agent key.
func Handlers(b Buyer) []string {
	if b.Key != nil {
		return []string{HandlerCard, HandlerSavedCard}
	}
	return []string{HandlerCard}
}

// Complete buys the session's item through the purchase path: one order,
// the purchase's fees, caps, approvals and charge. A session completes
// once; a refusal (sold, a cap, a declined card) answers the session, not
// completed, with a message saying why, and nothing charged. A purchase
// above the owner's approval threshold leaves the session pending_approval
// until the owner decides.
//
// The purchase runs under the idempotency key of the session's attempt
// (PurchaseKey) and marks the session completing in the transaction that
// reserves the listing, so a retry after a crash finds the order and
// finishes it, and two completes of one session never both reserve.
func (s *Service) Complete(ctx context.Context, b Buyer, id string, pay PaymentChoice, requestID string) (*View, error) {
	sess, err := s.owned(ctx, s.store.Read(), b, id)
	if err != nil {
		return nil, err
	}
	switch {
	case sess.State == StateCompleted || sess.State == StatePendingApproval || sess.State == StateCanceled || s.expired(sess):
		return s.view(ctx, b, sess)
	case sess.State == StateOpen:
		v, err := s.view(ctx, b, sess)
		if err != nil || v.Status != StatusReady {
			return v, err
		}
		if price := v.Lines[0].UnitAmount; price != sess.SeenPrice {
			// The buyer has not seen this price: they are shown it first.
			return s.seePrice(ctx, b, sess, price)
		}
		if m := s.payable(b, pay); m != nil {
			return s.view(ctx, b, sess, *m)
		}
	}
	// Open and ready, or completing after a run that died: (re)run the
	// purchase of the current attempt.
	if sess.State == StateCompleting && sess.Payment != nil {
		pay = *sess.Payment
	}
	in := purchaseInput(sess, sess.option(selectedID(sess)))
	price := sess.SeenPrice
	in.ExpectedPrice, in.RequestID, in.CheckoutSessionID = &price, requestID, sess.ID
	if b.Key != nil {
		in.MaxPrice = &price
	}
	if pay.Handler == HandlerCard {
		in.PaymentToken = pay.Token
	} // else the owner's default card (HandlerSavedCard)
	buyer, err := s.purchaserOf(ctx, b, sess)
	if err != nil {
		return nil, err
	}
	attempt := sess.Attempt
	in.Within = func(ctx context.Context, tx orders.Tx) error {
		ct, ok := tx.(Tx)
		if !ok {
			return market.Internal(errors.New("checkouts: the purchase transaction is no checkouts.Tx"))
		}
		cur, err := ct.CheckoutByID(ctx, id)
		if err != nil {
			return err
		}
		if cur.State != StateOpen || cur.Attempt != attempt {
			return errRaced
		}
		cur.State, cur.Payment, cur.UserID, cur.UpdatedAt = StateCompleting, &pay, buyer.User.ID, s.clock.Now()
		return ct.UpdateCheckout(ctx, cur)
	}
	o, perr := s.orders.Purchase(market.WithIdempotencyKey(ctx, sess.PurchaseKey()), buyer, in)
	return s.settle(ctx, b, id, attempt, o, perr)
}

func selectedID(sess *Session) string {
	for _, sel := range sess.Selected {
		if sess.option(sel.OptionID) != nil {
			return sel.OptionID
		}
	}
	return ""
}

// purchaserOf is who buys the session's item: the key's owner, or the
// guest buyer of the session's e-mail for a platform.
func (s *Service) purchaserOf(ctx context.Context, b Buyer, sess *Session) (orders.Buyer, error) {
	if b.Key != nil {
		return b.purchaser(sess), nil
	}
	if sess.Buyer == nil || sess.Buyer.Email == "" || s.opts.Guests == nil {
		return orders.Buyer{}, market.Errorf(market.CodeInvalidState, "the session has no buyer e-mail")
	}
	g, err := s.opts.Guests.Guest(ctx, sess.Buyer.Email, sess.Buyer.Name())
	if err != nil {
		return orders.Buyer{}, err
	}
	if g.Blocked() {
		return orders.Buyer{}, market.Errorf(market.CodeAccountSuspended, "this buyer's account is %s", g.Status)
	}
	b.User = g
	return b.purchaser(sess), nil
}

// payable checks the payment asked for before anything is reserved: a
// message when it cannot be used, nil when it can.
func (s *Service) payable(b Buyer, pay PaymentChoice) *Message {
	if pay.Handler == HandlerCard && pay.Token == "" {
		m := errorMessage(CodeInvalid, "$.payment_data.instrument.credential.token", Recoverable,
			"The card handler takes the token delegate_payment answered.")
		return &m
	}
	for _, h := range Handlers(b) {
		if h == pay.Handler {
			return nil
		}
	}
	m := errorMessage(CodePaymentDeclined, "$.payment_data.handler_id", Recoverable,
		"This session takes payment through the handlers its capabilities list (%s).", strings.Join(Handlers(b), ", "))
	return &m
}

// seePrice records that the buyer has been shown the item's new price.
func (s *Service) seePrice(ctx context.Context, b Buyer, sess *Session, price int64) (*View, error) {
	old := sess.SeenPrice
	sess, err := s.amend(ctx, sess.ID, func(cur *Session) bool {
		if cur.State != StateOpen {
			return false
		}
		cur.SeenPrice = price
		return true
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, b, sess, Message{Kind: MessageInfo, Param: "$.line_items[0]",
		Content: "The price changed from " + formatCents(old) + " to " + formatCents(price) + " before payment; nothing was charged. Complete again to buy at the new price."})
}

// settle records the purchase's outcome on the session and answers it.
func (s *Service) settle(ctx context.Context, b Buyer, id string, attempt int, o *orders.Order, perr error) (*View, error) {
	var msgs []Message
	to := StateOpen
	switch {
	case errors.Is(perr, errRaced):
		sess, err := s.owned(ctx, s.store.Read(), b, id)
		if err != nil {
			return nil, err
		}
		return s.view(ctx, b, sess)
	case perr == nil && o != nil && o.Status != orders.StatusCancelled && o.Status != orders.StatusExpired:
		to = StateCompleted
	case market.CodeOf(perr) == market.CodeApprovalRequired && o != nil:
		to = StatePendingApproval
	case perr == nil:
		// A run that died after a declined charge: its order was released.
		msgs = []Message{errorMessage(CodePaymentDeclined, "$.payment_data", Recoverable,
			"The payment was declined; nothing was charged.")}
	default:
		if msgs = messageOf(perr); msgs == nil {
			// No business answer (a frozen key, a failure of ours): a
			// refusal came before the reservation committed; after it, the
			// session stays completing and a retry finishes the attempt.
			return nil, perr
		}
	}
	sess, err := s.amend(ctx, id, func(cur *Session) bool {
		if cur.Attempt != attempt || cur.State != StateCompleting {
			return false // nothing was reserved for this attempt (or it was settled)
		}
		cur.State = to
		switch to {
		case StateOpen:
			cur.Attempt++ // the next attempt purchases under a new key
			cur.Payment = nil
		case StatePendingApproval:
			cur.OrderID = o.ID
			if e := market.ErrorOf(perr); e != nil {
				cur.ApprovalID, _ = e.Details["approval_id"].(string)
			}
		default:
			cur.OrderID = o.ID
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return s.view(ctx, b, sess, msgs...)
}
