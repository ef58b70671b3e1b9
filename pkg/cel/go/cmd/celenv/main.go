// Command celenv lists what the scheduler's DRA CEL environment admits: the functions with
// their overload counts and the macros (docs/cel.md, option (c)).
package main

import (
	"fmt"
	"sort"

	"k8s.io/dynamic-resource-allocation/cel"
)

func main() {
	c := cel.GetCompiler(cel.Features{EnableConsumableCapacity: true})
	res := c.CompileCELExpression("true", cel.Options{DisableCostEstimation: true})
	if res.Error != nil {
		panic(res.Error)
	}
	fns := res.Environment.Functions()
	names := make([]string, 0, len(fns))
	overloads := 0
	for name, f := range fns {
		names = append(names, name)
		overloads += len(f.OverloadDecls())
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Printf("function %s %d\n", n, len(fns[n].OverloadDecls()))
	}
	for _, m := range res.Environment.Macros() {
		fmt.Printf("macro %s/%d\n", m.Function(), m.ArgCount())
	}
	fmt.Printf("total: %d functions, %d overloads, %d macros\n", len(names), overloads, len(res.Environment.Macros()))
}
