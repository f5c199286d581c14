"""Pictures of the table: a game-neutral view, its Pillow picture, and the HTML replay.

``table_view(game)`` (no Pillow) says what lies where; ``picture(view)`` draws it as an
``H x W x 3`` ``uint8`` array (the environment's ``render_mode="rgb_array"``); the replay page
draws the same layout in the browser.
"""

from __future__ import annotations

from patience_gym.render.view import Frame, Place, TableView, layout
from patience_gym.render.views import VIEWS, table_view

__all__ = ["VIEWS", "Frame", "Place", "TableView", "layout", "table_view"]
