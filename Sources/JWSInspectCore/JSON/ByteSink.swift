/// Where JSON text is written, a byte or a run of bytes at a time: an `[UInt8]`, or the
/// buffer a `JSONStream` owns (`OutputBytes`), whose appends cost a bounds check and a copy
/// (an Array's also check that it is uniquely referenced, and call out, for every append:
/// most of writing a result, which is a few hundred short appends).
package protocol ByteSink {
    mutating func write(_ byte: UInt8)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension ByteSink {
    /// A string's UTF-8, copied whole from its storage.
    mutating func write(utf8 text: String) {
        var text = text
        text.withUTF8 { write($0) }
    }

    /// A name written in code.
    mutating func write(_ text: StaticString) {
        write(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension Array: ByteSink where Element == UInt8 {
    package mutating func write(_ byte: UInt8) { append(byte) }
    package mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// Bytes in memory of their own, grown by doubling: the output buffer of one result.
///
/// A value type over memory held by `Storage`, which frees it: copies share the memory, so a
/// buffer is written through one variable (`JSONStream` owns one and hands out copies of its
/// bytes, never of itself).
package struct OutputBytes: ByteSink {
    private final class Storage {
        var base: UnsafeMutablePointer<UInt8>
        init(capacity: Int) { base = .allocate(capacity: capacity) }
        deinit { base.deallocate() }
    }

    private let storage: Storage
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written.
    package private(set) var count = 0

    package init(capacity: Int) {
        self.capacity = max(capacity, 64)
        storage = Storage(capacity: self.capacity)
        base = storage.base
    }

    package mutating func write(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    package mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if count + bytes.count > capacity { grow(to: count + bytes.count) }
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    private mutating func grow(to needed: Int) {
        var capacity = self.capacity * 2
        while capacity < needed { capacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: base, count: count)
        storage.base.deallocate()
        storage.base = grown
        base = grown
        self.capacity = capacity
    }

    /// The bytes written, as an array.
    package var array: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

    /// Calls `body` with the bytes written, in place.
    package func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeBufferPointer(start: base, count: count))
    }
}
