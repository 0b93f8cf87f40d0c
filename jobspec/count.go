package jobspec

import (
	"fmt"
	"math"
)

// Unbounded is the Max of a count given in mapping form without "max"
// (2^32-1).
const Unbounded = math.MaxUint32

// Count is a resource count request (jobspec.md §2.1): select between Min
// and Max units, in steps given by Operator and Operand. The scalar form
// "count: N" is {N, N, '+', 1}.
type Count struct {
	Min, Max uint32
	// Operator is '+', '*' or '^' for a parsed jobspec.
	Operator byte
	Operand  int64
}

// Fixed returns the count "exactly n" ({n, n, '+', 1}).
func Fixed(n uint32) Count { return Count{Min: n, Max: n, Operator: '+', Operand: 1} }

// String renders the count as "N" for a fixed count, else as
// "{min,max,op,operand}".
func (c Count) String() string {
	if c.Min == c.Max && c.Operator == '+' && c.Operand == 1 {
		return fmt.Sprint(c.Min)
	}
	return fmt.Sprintf("{%d,%d,%c,%d}", c.Min, c.Max, c.Operator, c.Operand)
}

// Calc returns the number of units to select when q qualified units are
// available (calc_count, jobspec.md §2.2), or 0 when the request cannot be
// satisfied:
//
//   - min > max or min > q: 0;
//   - '+': c = min(q, max) rounded down to min + k·operand;
//   - '*': the largest min·operand^k not exceeding q and max (min when
//     operand is 1);
//   - '^': the largest term of min, min^operand, (min^operand)^operand, …
//     not exceeding q and max (min when operand < 2 or min = 1);
//   - any other operator: 0.
//
// Arithmetic is on uint32 values; a '*' or '^' sequence stops when the
// next term would exceed 2^32-1 (so the result is always the largest term
// that fits, never a wrapped value). Operand values a parsed jobspec cannot
// hold are handled without panicking: '+' with an operand that is not
// positive behaves like operand 1 (no rounding), '*' with an operand below
// 2 returns min, and '*' or '^' with min 0 returns 0.
func (c Count) Calc(q uint32) uint32 {
	if c.Min > c.Max || c.Min > q {
		return 0
	}
	switch c.Operator {
	case '+':
		cnt := min(q, c.Max)
		if c.Operand <= 1 {
			return cnt
		}
		op := uint64(c.Operand)
		return cnt - uint32((uint64(cnt-c.Min))%op)
	case '*':
		if c.Operand < 2 {
			return c.Min
		}
		if c.Min == 0 { // 0·operand^k = 0 forever
			return 0
		}
		limit := uint64(min(q, c.Max))
		op := uint64(c.Operand)
		cur := uint64(c.Min)
		for op <= limit/cur { // cur·op <= limit
			cur *= op
		}
		return uint32(cur)
	case '^':
		if c.Operand < 2 || c.Min == 1 {
			return c.Min
		}
		if c.Min == 0 { // 0^k = 0 forever: the loop would never end
			return 0
		}
		limit := uint64(min(q, c.Max))
		cur, res := uint64(c.Min), uint64(c.Min)
		for cur <= limit {
			res = cur
			base := cur
			next := cur
			for i := int64(1); i < c.Operand; i++ {
				if next > limit/base { // next*base > limit
					next = limit + 1
					break
				}
				next *= base
			}
			cur = next
		}
		return uint32(res)
	}
	return 0
}

// EffectiveMax is the largest count the request could ever take
// (calc_effective_max): Calc(2^32-1). For a plain count N it is N.
func (c Count) EffectiveMax() uint32 { return c.Calc(math.MaxUint32) }
