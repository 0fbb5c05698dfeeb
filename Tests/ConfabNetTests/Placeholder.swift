// tests being written
