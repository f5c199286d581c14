"""``patience-gym solve``: the deals won, lost or unknown for a player who sees every card.

:mod:`~agents.solving.labels` reads and writes the label files, :mod:`~agents.solving.chunks`
holds the config and the chunked, resumable solving that :mod:`~agents.solving.solve` (labelling,
``--deepen``) and :mod:`~agents.solving.dive` (the searches for wins among the unknown deals) share.
"""
