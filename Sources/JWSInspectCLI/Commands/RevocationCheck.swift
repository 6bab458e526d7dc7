internal import FoundationEssentials
internal import JWSInspectCore

/// `--check-revocation` for inspect and fetch: the OCSP requester a run shares (one request per
/// certificate per run, whichever engine asks) and its `--revocation-cache` folder.
final class RevocationCheck: Sendable {
    let requester: OCSPRequester
    let cache: CacheFolder?

    /// The check the options ask for: nil without `--check-revocation`; else the requester, or
    /// the message and status of a cache folder that cannot be used.
    ///
    /// - Parameter timeout: seconds a request may take, when the command has a `--timeout` of
    ///   its own (fetch's); else inspect's `--timeout`, or 10.
    static func make(_ options: InspectOptions, timeout: Int? = nil) -> Result<RevocationCheck?, RootFiles.Failure> {
        let timeout = timeout ?? options.revocationTimeout ?? InspectOptions.defaultRevocationTimeout
        guard options.checkRevocation else { return .success(nil) }
        var cache: CacheFolder?
        if let folder = options.revocationCache {
            if let failure = System.prepareFolder(folder) {
                return .failure(
                    RootFiles.Failure(message: "--revocation-cache: \(failure.message(folder))", status: .ioError))
            }
            cache = CacheFolder(path: folder)
        }
        return .success(RevocationCheck(requester: OCSPRequester(timeout: timeout, store: cache), cache: cache))
    }

    private init(requester: OCSPRequester, cache: CacheFolder?) {
        self.requester = requester
        self.cache = cache
    }

    /// What the run says on standard error at its end: the first entry the cache could not read
    /// or answer it could not keep (one line, however many there were).
    var warnings: [String] {
        guard let cache, let failure = cache.firstFailure else { return [] }
        return ["warning: --revocation-cache \(cache.path): \(failure)"]
    }

    /// Verified OCSP answers as files `HEX.ocsp` of a folder, written as every file jwsinspect
    /// writes (`System.writeFile`: a new file renamed into place, 0600, never through a symbolic
    /// link). What is read is verified again before it is believed, and is read only from a
    /// regular file of at most `OCSPRequester.maximumResponseBytes` (`System.readRegularFile`:
    /// no symbolic link followed, no FIFO or device opened for reading, so no entry can hang
    /// the run); anything else at an entry's name is a miss, said in a warning, and left there
    /// (jwsinspect removes nothing it did not write).
    final class CacheFolder: RevocationResponseStore {
        let path: String
        private let failure = Locked<String?>(nil)

        init(path: String) { self.path = path }

        var firstFailure: String? { failure.withLock { $0 } }

        func load(_ key: String) -> [UInt8]? {
            switch System.readRegularFile(file(key), limit: OCSPRequester.maximumResponseBytes) {
            case .success(let bytes): return bytes
            case .failure(.missing): return nil
            case .failure(.refused(let problem)):
                note("\(file(key)): not read, asked again: \(problem)")
                return nil
            }
        }

        func save(_ key: String, _ response: [UInt8]) {
            guard let problem = System.writeFile(file(key), response) else { return }
            note("an answer was not kept: \(file(key)): \(problem)")
        }

        private func note(_ problem: String) {
            failure.withLock { if $0 == nil { $0 = problem } }
        }

        private func file(_ key: String) -> String {
            (path.hasSuffix("/") ? path : path + "/") + key + ".ocsp"
        }
    }
}
