package hub

import (
	"context"
	"sync"
)

// group runs functions concurrently and keeps the first error; the first
// failure cancels the others' context. (errgroup, without the dependency.)
type group struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

func newGroup(ctx context.Context) *group {
	ctx, cancel := context.WithCancelCause(ctx)
	return &group{ctx: ctx, cancel: cancel}
}

func (g *group) Go(f func(ctx context.Context) error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(g.ctx); err != nil {
			g.once.Do(func() {
				g.err = err
				g.cancel(err)
			})
		}
	}()
}

// Wait waits for every function and returns the first error.
func (g *group) Wait() error {
	g.wg.Wait()
	g.cancel(nil)
	return g.err
}
