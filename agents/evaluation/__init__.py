"""Playing policies on fixed deals: win rates with their intervals (:mod:`~agents.evaluation.evaluate`)
and one episode written as a page to step through (:mod:`~agents.evaluation.replay`)."""
