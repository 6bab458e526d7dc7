extension InputStream {
    /// The whole input as one byte array, for a reader that takes an input as one item
    /// (`ExactInput`), on a stream no record has been read from: read to its end, or until more
    /// than `maximum` bytes are held, when reading stops (the bytes then say that the input is
    /// over the limit, and memory stays bounded). A live input is waited for: its end is part of
    /// what is read. `readError` says whether reading failed.
    ///
    /// - Parameter maximum: the most bytes wanted (one record's limit); at most one more is returned.
    package mutating func wholeInput(maximum: Int) -> [UInt8] {
        while buffer.count - position <= maximum, fill() {}
        let bytes = Array(buffer[position..<min(buffer.count, position + maximum + 1)])
        position = buffer.count
        return bytes
    }
}
