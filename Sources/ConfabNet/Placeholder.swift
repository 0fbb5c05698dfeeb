// ConfabNet: SwiftNIO discovery and sessions (being written)
