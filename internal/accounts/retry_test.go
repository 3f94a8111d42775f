package accounts

import (
	"testing"

	"marketplace/internal/market"
)

func TestRetryDerivedUsername(t *testing.T) {
	taken := market.Errorf(market.CodeUsernameTaken, "taken")
	cases := []struct {
		name     string
		username string
		fails    int // how many times create fails with USERNAME_TAKEN first
		err      error
		calls    int
		wantCode market.Code
	}{
		{"derived, free at once", "", 0, nil, 1, ""},
		{"derived, taken twice then free", "", 2, nil, 3, ""},
		{"derived, always taken: four tries", "", 10, nil, 4, market.CodeUsernameTaken},
		{"chosen and taken: no retry", "ann", 10, nil, 1, market.CodeUsernameTaken},
		{"another error: no retry", "", 0, market.Errorf(market.CodeEmailTaken, "x"), 1, market.CodeEmailTaken},
	}
	for _, c := range cases {
		calls := 0
		err := RetryDerivedUsername(NewUser{Username: c.username}, func() error {
			calls++
			if calls <= c.fails {
				return taken
			}
			return c.err
		})
		if calls != c.calls || market.CodeOf(err) != c.wantCode {
			t.Errorf("%s: %d calls, code %q; want %d, %q", c.name, calls, market.CodeOf(err), c.calls, c.wantCode)
		}
	}
}
