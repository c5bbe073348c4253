"""A token axis labels each cell by its token; a cell past the tokens it was given (a pass with other tokens replacing
the one the labels came from, between two relabellings) is labelled by its index, never an error inside a paint."""

from tfdebug.ui.widgets.heatmap_axes import TokenAxis


def test_a_cell_past_the_labels_given_is_labelled_by_its_index(qtbot):
    axis = TokenAxis("bottom", rotate_labels=True)
    axis.set_cells(5, ["the", "cat"])
    assert [axis.label_of(cell) for cell in range(5)] == ["the", "cat", "2", "3", "4"]
    axis.set_cells(3)
    assert axis.label_of(1) == "1"
