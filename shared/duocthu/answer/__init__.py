"""An evidence bundle -> the reply: the chat turn, the replies' wording, extractive and grounded answers."""
