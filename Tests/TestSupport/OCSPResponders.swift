internal import Foundation
package import Testing

/// The `.ocspResponders` suite trait: the OCSP responders a suite starts end when the suite
/// ends, the suite's `OCSPTestPKI` (`OCSPResponders.pki`, started before its first test) and
/// those its tests start themselves alike.
///
/// ```swift
/// @Suite(.timeLimit(.minutes(10)), .ocspResponders) struct RevocationTests { … }
/// ```
package struct OCSPResponders: SuiteTrait, TestScoping {
    package var isRecursive: Bool { false }

    package init() {}

    package func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let scope = Scope()
        defer { scope.end() }
        try await Self.$current.withValue(scope) {
            try scope.start()
            try await function()
        }
    }

    /// The suite's PKI, its responders started before its first test.
    package static var pki: OCSPTestPKI {
        guard let pki = current?.pki else {
            preconditionFailure("OCSPResponders.pki is for tests in a suite with the .ocspResponders trait")
        }
        return pki
    }

    /// Ends `process` with the current suite (a responder is started).
    static func adopt(_ process: ChildProcess) {
        guard let current else {
            let message =
                "'\(process.command)' was started outside a suite with the .ocspResponders trait, so nothing ends it "
                + "with its suite"
            Issue.record(Comment(rawValue: message))
            return
        }
        current.adopt(process)
    }

    @TaskLocal private static var current: Scope?

    /// One suite's responders and PKI.
    ///
    /// `@unchecked Sendable`: `pki` is set once, before the suite's tests start; the rest is
    /// guarded by `lock`.
    private final class Scope: @unchecked Sendable {
        private let lock = NSLock()
        private var processes: [ChildProcess] = []
        private let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwsinspect-ocsp-\(UUID().uuidString)")
        private(set) var pki: OCSPTestPKI?

        /// Starts the suite's PKI (in this scope, which adopts its responders).
        func start() throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            pki = try OCSPTestPKI(folder: folder)
        }

        func adopt(_ process: ChildProcess) {
            lock.withLock { processes.append(process) }
        }

        /// Ends every responder, and removes the PKI's folder.
        func end() {
            for process in lock.withLock({ processes }) { process.end() }
            try? FileManager.default.removeItem(at: folder)
        }
    }
}

extension Trait where Self == OCSPResponders {
    /// The suite's OCSP responders end when it ends (`OCSPResponders`).
    package static var ocspResponders: Self { Self() }
}
