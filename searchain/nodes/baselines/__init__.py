"""The Table-1 baselines' nodes: Self-Ask, ReAct, CoT-SC, Plan-and-Solve, Verify-and-Edit."""
