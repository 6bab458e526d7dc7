internal import AppStoreTestData

/// Internal helpers for calling OpenSSL from the test PKI: `AppStoreTestData`'s `OpenSSLCall`,
/// stopping on its error.
///
/// Every OpenSSL call made by this module works on inputs the module itself
/// controls, so a failure is a programming error (or a broken OpenSSL
/// installation), never a condition a test should handle. These helpers turn
/// such failures into a `preconditionFailure` that carries the OpenSSL error
/// queue, so the cause is visible in the test log.
enum OpenSSL {
    /// Stops the process with `what` and the drained OpenSSL error queue.
    static func fail(_ what: String, file: StaticString = #file, line: UInt = #line) -> Never {
        preconditionFailure("TestPKI: \(OpenSSLCall.failure(what))", file: file, line: line)
    }

    /// The value `body` returns; a thrown error (from `AppStoreTestData` or the core) stops the
    /// process with its message: fixtures make their own inputs, so it is a programming error.
    static func must<T, E: Error>(
        file: StaticString = #file, line: UInt = #line, _ body: () throws(E) -> T
    ) -> T {
        do {
            return try body()
        } catch {
            preconditionFailure("TestPKI: \(error)", file: file, line: line)
        }
    }

    /// Requires an OpenSSL status code to be exactly 1 (OpenSSL's success value).
    static func check(_ status: Int32, _ what: String, file: StaticString = #file, line: UInt = #line) {
        must(file: file, line: line) { () throws(MintError) in try OpenSSLCall.check(status, what) }
    }

    /// Requires an OpenSSL constructor or getter to return a non-NULL pointer.
    static func unwrap<T>(_ pointer: T?, _ what: String, file: StaticString = #file, line: UInt = #line) -> T {
        must(file: file, line: line) { () throws(MintError) in try OpenSSLCall.unwrap(pointer, what) }
    }

    /// Serialises an object with an OpenSSL `i2d_*` function into a byte array (`OpenSSLCall.der`).
    static func der(
        _ what: String,
        _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) -> [UInt8] {
        must { () throws(MintError) in try OpenSSLCall.der(what, encode) }
    }
}
