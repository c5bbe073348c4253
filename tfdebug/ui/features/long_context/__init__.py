"""Long context: the Query Row dock (one query's row of an attention plane at full length, View ▸ Query Row).

The heatmap's zoom, tiles and log scale that long contexts also need are the heatmap's own (`widgets/`)."""
