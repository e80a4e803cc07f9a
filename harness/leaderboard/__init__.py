"""The joint leaderboard: collect results, rank by Pareto layer, render md / csv / html / svg, check."""
