"""Generation: the Generation dock (the token strip, the attention rows and the K/V cache of the step on
screen) and the facts it reads from a generation's stages (`data`)."""
