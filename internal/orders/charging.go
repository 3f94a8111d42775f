package orders

import "sync"

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
