package orders

import (
	"context"
	"sync"

	"marketplace/internal/agents"
	"marketplace/internal/market"
)

// charging is the set of this process's orders between their reservation
// and the end of their charge. The reconciler leaves them alone: its grace
// period is measured on the service clock, which the sandbox's time advance
// moves, so after an advance a purchase still at the processor would look
// abandoned and be released while its charge goes through (money taken with
// no order). A crash empties the set, and the reconciler then repairs the
// order as before. Live mode runs on real time, where the grace alone keeps
// the reconciler off a charge in flight on any replica.
type charging struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

func (c *charging) add(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil {
		c.ids = map[string]struct{}{}
	}
	c.ids[id] = struct{}{}
}

func (c *charging) done(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.ids, id)
}

func (c *charging) has(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.ids[id]
	return ok
}

// keyStopped re-reads an agent order's key just before the processor is
// asked: a freeze or revoke that committed after the purchase's own check
// (in its transaction, under the owner's lock) still stops it, and the
// reservation is released with nothing charged (CONTRACT.md section 4: a
// freeze stops requests already past authentication that have not
// charged). A failed read leaves the decision the transaction made.
func (s *Service) keyStopped(ctx context.Context, o *Order) error {
	if s.opts.BeforeCharge != nil {
		s.opts.BeforeCharge(ctx, o.ID, o.ListingID)
	}
	if o.BuyerKeyID == "" {
		return nil
	}
	k, err := s.store.Read().KeyByID(ctx, o.BuyerKeyID)
	var stop error
	switch {
	case err != nil:
		return nil
	case k.Status == agents.KeyFrozen && k.FrozenReason == agents.FrozenPurchaseVelocity:
		// The velocity rule freezes a key in the transaction of the
		// purchase that crossed its line, which goes through (CONTRACT.md
		// 15); a purchase that reserved before it did, too.
		return nil
	case k.Status == agents.KeyFrozen:
		stop = market.Errorf(market.CodeAgentFrozen, "this agent key was frozen before the charge; nothing was charged")
	case k.Status == agents.KeyRevoked:
		stop = market.Errorf(market.CodeInvalidAgentKey, "this agent key was revoked before the charge; nothing was charged")
	default:
		return nil
	}
	defer s.charging.done(o.ID)
	return s.release(ctx, o, "key_stopped", stop)
}
