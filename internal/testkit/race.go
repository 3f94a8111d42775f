package testkit

import "sync"

// Race runs fn for 0..n-1 in n goroutines released together (by a closed
// channel, so none starts ahead while the others are being made) and
// returns the answers in call order.
func Race[T any](n int, fn func(i int) T) []T {
	out := make([]T, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return out
}
