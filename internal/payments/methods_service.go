package payments

import (
	"context"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Saved cards. The processor is never called inside a transaction: its
// answer may take long, and the sandbox writes to the same database (on
// SQLite a nested write would wait for the transaction's own connection).
// So each method asks the processor first and records the answer after,
// under the owner's lock.

// SetupIntent starts saving a card for the caller, making their customer at
// the processor on first use.
func (s *Service) SetupIntent(ctx context.Context, actor market.Actor) (*SetupIntent, error) {
	customerID, err := s.customer(ctx, actor.UserID)
	if err != nil {
		return nil, err
	}
	si, err := s.gateway.CreateSetupIntent(ctx, customerID)
	if err != nil {
		return nil, err
	}
	r := &SetupRecord{ID: si.ID, UserID: actor.UserID, Processor: s.gateway.Name(), ClientSecret: si.ClientSecret,
		Status: SetupPending, CreatedAt: s.clock.Now()}
	err = s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.CreateSetupRecord(ctx, r); err != nil {
			return err
		}
		return events.Record(ctx, tx, r.CreatedAt, actor, "setup_intent.created", "user", actor.UserID,
			map[string]any{"setup_intent_id": si.ID})
	})
	if err != nil {
		return nil, err
	}
	return si, nil
}

// customer returns the user's customer id at the processor, creating and
// recording it on first use. Concurrent first uses record one customer: the
// processor's CreateCustomer is asked outside the transaction, then the
// owner's lock decides whose answer is kept (the sandbox answers both with
// the same customer anyway).
func (s *Service) customer(ctx context.Context, userID string) (string, error) {
	id, err := s.store.Read().PaymentCustomer(ctx, userID)
	if market.CodeOf(err) != market.CodeNotFound {
		return id, err
	}
	u, err := s.store.Read().UserByID(ctx, userID)
	if err != nil {
		return "", err
	}
	created, err := s.gateway.CreateCustomer(ctx, u)
	if err != nil {
		return "", err
	}
	err = s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.LockUser(ctx, userID); err != nil {
			return err
		}
		if _, err := tx.InsertPaymentCustomer(ctx, userID, s.gateway.Name(), created, s.clock.Now()); err != nil {
			return err
		}
		id, err = tx.PaymentCustomer(ctx, userID)
		return err
	})
	return id, err
}

// ConfirmSetup saves the card of a setup intent the caller started.
// paymentMethod is the processor's id from its hosted form or, in sandbox, a
// test token. The first saved card becomes the default. Another user's (or
// an unknown) setup intent is NOT_FOUND. Confirming a setup intent again
// with the same paymentMethod returns the card it saved (a retried request
// saves nothing twice); with another paymentMethod, or after that card was
// deleted, it is INVALID_STATE.
func (s *Service) ConfirmSetup(ctx context.Context, actor market.Actor, setupIntentID, paymentMethod string) (*PaymentMethod, error) {
	var c market.Check
	c.Require(setupIntentID != "", "setup_intent_id", "is required")
	c.Require(paymentMethod == "" || wellFormedToken(paymentMethod), "payment_method", "must be a payment method id or test token")
	c.Require(paymentMethod != "", "payment_method", "is required")
	if err := c.Err(); err != nil {
		return nil, err
	}
	r, err := s.setupRecord(ctx, s.store.Read(), actor.UserID, setupIntentID)
	if err != nil {
		return nil, err
	}
	if r.Status == SetupSucceeded {
		return s.confirmedBefore(ctx, s.store.Read(), r, paymentMethod)
	}
	customerID, err := s.store.Read().PaymentCustomer(ctx, actor.UserID)
	if err != nil {
		return nil, err
	}
	// The processor answers a repeat with the same payment method with the
	// same card, so concurrent confirms of one setup intent all get here;
	// the first to take the owner's lock records the card, the others find
	// it recorded.
	card, err := s.gateway.ConfirmSetup(ctx, r.ID, customerID, paymentMethod)
	if err != nil {
		return nil, err
	}
	var out *PaymentMethod
	err = s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		r, err := s.setupRecord(ctx, tx, actor.UserID, setupIntentID)
		if err != nil {
			return err
		}
		if r.Status == SetupSucceeded {
			out, err = s.confirmedBefore(ctx, tx, r, paymentMethod)
			return err
		}
		m := &PaymentMethod{ID: market.NewID(), UserID: actor.UserID, Processor: s.gateway.Name(), ExternalID: card.ID,
			Brand: card.Brand, Last4: card.Last4, ExpMonth: card.ExpMonth, ExpYear: card.ExpYear, CreatedAt: s.clock.Now()}
		_, err = tx.DefaultPaymentMethod(ctx, actor.UserID)
		switch market.CodeOf(err) {
		case market.CodeNotFound:
			m.IsDefault = true
		case "":
		default:
			return err
		}
		if err := tx.CreatePaymentMethod(ctx, m); err != nil {
			return err
		}
		r.Status, r.ConfirmedWith, r.PaymentMethodID = SetupSucceeded, paymentMethod, m.ID
		if err := tx.UpdateSetupRecord(ctx, r); err != nil {
			return err
		}
		out = m
		return events.Record(ctx, tx, m.CreatedAt, actor, "payment_method.created", "payment_method", m.ID,
			map[string]any{"brand": m.Brand, "last4": m.Last4, "is_default": m.IsDefault})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// setupRecord finds one of the user's setup intents.
func (s *Service) setupRecord(ctx context.Context, tx Tx, userID, id string) (*SetupRecord, error) {
	if !wellFormedToken(id) {
		return nil, market.NotFound("setup intent")
	}
	r, err := tx.SetupRecord(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && r.UserID != userID {
		return nil, market.NotFound("setup intent")
	}
	return r, err
}

// confirmedBefore answers a confirm of a setup intent that already saved a
// card.
func (s *Service) confirmedBefore(ctx context.Context, tx Tx, r *SetupRecord, paymentMethod string) (*PaymentMethod, error) {
	if r.ConfirmedWith == paymentMethod {
		m, err := tx.PaymentMethodByID(ctx, r.PaymentMethodID)
		if err == nil {
			return m, nil
		}
		if market.CodeOf(err) != market.CodeNotFound {
			return nil, err
		}
	}
	return nil, market.Errorf(market.CodeInvalidState, "this setup intent has already saved a card; start a new one with POST /payment-methods/setup")
}

// PaymentMethods lists the caller's (or the agent's owner's) saved cards,
// the default first, then newest first.
func (s *Service) PaymentMethods(ctx context.Context, actor market.Actor) ([]PaymentMethod, error) {
	return s.store.Read().PaymentMethods(ctx, actor.UserID)
}

// CardOnFile returns the caller's default card, or nil when none is saved.
func (s *Service) CardOnFile(ctx context.Context, actor market.Actor) (*PaymentMethod, error) {
	m, err := s.store.Read().DefaultPaymentMethod(ctx, actor.UserID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, nil
	}
	return m, err
}

// SetDefaultPaymentMethod makes one of the caller's cards the default.
func (s *Service) SetDefaultPaymentMethod(ctx context.Context, actor market.Actor, id string) (*PaymentMethod, error) {
	var out *PaymentMethod
	err := s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		m, err := s.ownMethod(ctx, tx, actor.UserID, id)
		if err != nil {
			return err
		}
		if err := tx.SetDefaultPaymentMethod(ctx, actor.UserID, id); err != nil {
			return err
		}
		m.IsDefault, out = true, m
		return events.Record(ctx, tx, s.clock.Now(), actor, "payment_method.default_set", "payment_method", id, nil)
	})
	return out, err
}

// DeletePaymentMethod removes one of the caller's cards, detaching it at the
// processor first (so a card we no longer list cannot be charged). When it
// was the default, the newest remaining card becomes the default.
func (s *Service) DeletePaymentMethod(ctx context.Context, actor market.Actor, id string) error {
	m, err := s.ownMethod(ctx, s.store.Read(), actor.UserID, id)
	if err != nil {
		return err
	}
	if err := s.gateway.DetachPaymentMethod(ctx, m.ExternalID); err != nil && market.CodeOf(err) != market.CodeNotFound {
		return err
	}
	return s.store.InTx(ctx, func(tx Tx) error {
		if err := tx.LockUser(ctx, actor.UserID); err != nil {
			return err
		}
		m, err := s.ownMethod(ctx, tx, actor.UserID, id)
		if err != nil {
			return err
		}
		if err := tx.DeletePaymentMethod(ctx, actor.UserID, id); err != nil {
			return err
		}
		if m.IsDefault {
			rest, err := tx.PaymentMethods(ctx, actor.UserID)
			if err != nil {
				return err
			}
			if len(rest) > 0 { // newest first
				if err := tx.SetDefaultPaymentMethod(ctx, actor.UserID, rest[0].ID); err != nil {
					return err
				}
			}
		}
		return events.Record(ctx, tx, s.clock.Now(), actor, "payment_method.deleted", "payment_method", id, nil)
	})
}

// ownMethod finds one of the user's cards; another user's is NOT_FOUND.
func (s *Service) ownMethod(ctx context.Context, tx Tx, userID, id string) (*PaymentMethod, error) {
	if !market.ValidID(id) {
		return nil, market.NotFound("payment method")
	}
	m, err := tx.PaymentMethodByID(ctx, id)
	if market.CodeOf(err) == market.CodeNotFound || err == nil && m.UserID != userID {
		return nil, market.NotFound("payment method")
	}
	return m, err
}

// ChargeableMethod picks the card a purchase charges and the customer it
// belongs to: methodID, or the default when methodID is "". With no saved
// card it is PAYMENT_METHOD_REQUIRED. An id that is not one of the user's
// cards (unknown, malformed, someone else's, or saved with another
// processor) is VALIDATION_ERROR on paymentMethodId, so a buyer learns which
// input is wrong without learning whether another user's card exists.
func (s *Service) ChargeableMethod(ctx context.Context, tx Tx, userID, methodID string) (*PaymentMethod, string, error) {
	var m *PaymentMethod
	var err error
	if methodID == "" {
		m, err = tx.DefaultPaymentMethod(ctx, userID)
		if market.CodeOf(err) == market.CodeNotFound || err == nil && m.Processor != s.gateway.Name() {
			return nil, "", market.Errorf(market.CodePaymentMethodRequired,
				"no saved payment method; the owner adds one with POST /payment-methods/setup and /payment-methods/confirm")
		}
	} else {
		m, err = s.ownMethod(ctx, tx, userID, methodID)
		if market.CodeOf(err) == market.CodeNotFound || err == nil && m.Processor != s.gateway.Name() {
			return nil, "", market.Invalid(market.FieldError{Field: "payment_method_id", Message: "no such payment method"})
		}
	}
	if err != nil {
		return nil, "", err
	}
	customerID, err := tx.PaymentCustomer(ctx, userID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil, "", market.Errorf(market.CodePaymentMethodRequired, "no saved payment method")
	}
	if err != nil {
		return nil, "", err
	}
	return m, customerID, nil
}
