internal import Dispatch
internal import Synchronization

// The batch engine: what makes many tokens cheap, behind one seam. `VerificationCache` keeps
// decoded headers with their signing prefixes (`decode`, in HeaderDecoding.swift), parsed
// certificates and validated chains; `SignatureBatch` defers ES256 verifications and runs them
// back to back (`DeferredSignature`); `BatchEngine` schedules scanning and verification on threads.

/// The batch engine's scheduling: scans records and verifies the tokens found on `jobs`
/// threads, a `SignatureBatch` at a time, and hands what the caller makes of each inspection
/// back in input order, so output order never depends on scheduling.
///
/// What a caller makes of an inspection (the CLI renders it) is its own business: `run` takes
/// it as a closure, called on the worker that verified the token, so that work is spread
/// over the threads too.
package final class BatchEngine: Sendable {
    /// Verifies every token; its cache is shared by every worker.
    package let verifier: Verifier
    /// Threads that scan and verify at once (1: the calling thread alone).
    package let jobs: Int

    /// What a worker takes: a record still to be scanned, or an item already found.
    package enum Work: Sendable {
        case record(InputStream.Record)
        case item(InputScanner.Item)
    }

    /// Records gathered before a batch is scanned and verified: enough to keep every core
    /// busy, few enough that memory stays small. One worker takes small batches, so a record
    /// is still in the CPU's caches when its tokens are verified.
    package var batchSize: Int { jobs == 1 ? 16 : 1024 }

    /// Bytes of records gathered before a batch is verified, whatever their number (one
    /// record over it makes a batch of its own): memory follows the input's bytes, not its lines.
    package static let batchBytes = 4 << 20

    /// Tokens verified, and their outcomes held, before those outcomes are handed over: a
    /// 64 MiB API dump holds thousands.
    package static let groupSize = 2048
    /// Bytes of tokens verified before their outcomes are handed over.
    package static let groupBytes = 8 << 20

    /// A record at least this large is scanned on the calling thread, its items verified as
    /// they are found, a group at a time: a 64 MiB line of 2.8 million glued tokens is never
    /// held as a list of them (each item costs about a hundred bytes more than its text).
    package static let streamedRecordBytes = 1 << 20

    package init(verifier: Verifier, jobs: Int) {
        self.verifier = verifier
        self.jobs = jobs
    }

    /// Scans and verifies `work` on all workers, makes each inspection's outcome with `outcome`
    /// on the worker that verified it, and hands each outcome to `deliver` in input order.
    ///
    /// Two parallel phases: scanning the records (so the reading thread only splits lines),
    /// then verifying every item found, in groups bounded by count and bytes (so one large
    /// JSON document, an API response with thousands of transactions, is verified on every
    /// core too, and its outcomes are handed over as they are ready, not all held).
    ///
    /// `@inlinable`, like the generic steps it calls, so that they are specialized for the
    /// caller's `Outcome`: unspecialized, handing outcomes around costs about a thousand
    /// instructions a token (0.1% of a run). The threads are started by `concurrently`.
    ///
    /// - Returns: why the first JSON-looking record that was not JSON failed to parse, if any.
    @inlinable
    package func run<Outcome: Sendable>(
        _ work: [Work], outcome: @Sendable (Inspection) -> Outcome, deliver: (Outcome) -> Void
    ) -> String? {
        guard !work.isEmpty else { return nil }
        var group: [InputScanner.Item] = []
        var groupBytes = 0
        func verifyGroup() {
            // Tokens are verified a few at a time, their ES256 verifications back to back (see
            // `SignatureBatch`).
            let chunks = stride(from: 0, to: group.count, by: SignatureBatch.size).map {
                group[$0..<min($0 + SignatureBatch.size, group.count)]
            }
            for outcomes in parallelMap(chunks, { self.outcomes(of: $0, outcome: outcome) }) {
                outcomes.forEach(deliver)
            }
            group.removeAll(keepingCapacity: true)
            groupBytes = 0
        }
        func add(_ item: InputScanner.Item) {
            group.append(item)
            switch item {
            case .token(_, let token): groupBytes += token.utf8.count
            case .receipt(_, let der): groupBytes += der.count
            case .transactionReceipt(_, let propertyList): groupBytes += propertyList.count
            case .realtimeResponse(_, let document): groupBytes += document.count
            case .malformed: break
            }
            if group.count >= Self.groupSize || groupBytes >= Self.groupBytes { verifyGroup() }
        }
        var jsonProblem: String?
        // In input order: runs of smaller records scanned in parallel, each large one streamed.
        var start = work.startIndex
        while start < work.endIndex {
            if case .record(let record) = work[start], record.size >= Self.streamedRecordBytes {
                let problem = record.scan(emit: add)
                if jsonProblem == nil { jsonProblem = problem }
                start += 1
                continue
            }
            let end =
                work[start...].firstIndex {
                    if case .record(let record) = $0 { return record.size >= Self.streamedRecordBytes }
                    return false
                } ?? work.endIndex
            let scanned = parallelMap(Array(work[start..<end])) {
                work -> (items: [InputScanner.Item], jsonProblem: String?) in
                switch work {
                case .item(let item): return ([item], nil)
                case .record(let record): return record.scan()
                }
            }
            for (items, problem) in scanned {
                items.forEach(add)
                if jsonProblem == nil { jsonProblem = problem }
            }
            start = end
        }
        verifyGroup()
        return jsonProblem
    }

    /// `transform` applied to every element on `jobs` threads, results in order.
    @inlinable
    func parallelMap<Input: Sendable, Output: Sendable>(
        _ inputs: [Input],
        _ transform: @Sendable (Input) -> Output
    ) -> [Output] {
        guard !inputs.isEmpty else { return [] }
        // One worker, or one element: no threads to hand work to.
        if jobs == 1 || inputs.count == 1 { return inputs.map(transform) }
        let slots = Slots<Output>(count: inputs.count)
        defer {
            // Release what the slots hold (tokens, outcomes), then the buffer itself.
            slots.buffer.deinitialize()
            slots.buffer.deallocate()
        }
        concurrently(inputs.count) { index in slots.buffer[index] = transform(inputs[index]) }
        return slots.buffer.map { $0! }
    }

    /// Calls `body` once with every index below `count`, on `jobs` threads at most, and
    /// returns when all calls have. Workers take the next unclaimed index, so a slow one
    /// never idles the others.
    @usableFromInline
    func concurrently(_ count: Int, _ body: @Sendable (Int) -> Void) {
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(jobs, count)) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < count else { return }
                body(index)
            }
        }
    }

    /// One result slot per item; each is written by exactly one worker and read only after
    /// `concurrently` returns, which is why sharing the buffer is safe.
    @usableFromInline
    struct Slots<Element>: @unchecked Sendable {
        @usableFromInline let buffer: UnsafeMutableBufferPointer<Element?>

        @inlinable
        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }
    }

    /// The items' outcomes, in order: inspected by the engine's signature step (every
    /// signature pending, then verified back to back), then made into outcomes.
    @inlinable
    func outcomes<Outcome>(
        of items: ArraySlice<InputScanner.Item>, outcome: (Inspection) -> Outcome
    ) -> [Outcome] {
        var batch = SignatureBatch(verifier: verifier, capacity: items.count)
        for item in items {
            switch item {
            case .token(let source, let token): batch.inspect(token, source: source)
            case .receipt(let source, let der): batch.append(verifier.inspectReceipt(der, source: source))
            case .transactionReceipt(let source, let propertyList):
                batch.append(verifier.inspectTransactionReceipt(propertyList, source: source))
            case .realtimeResponse(let source, let document):
                batch.append(verifier.inspectRealtimeResponse(document, source: source))
            case .malformed(let source, let reason): batch.append(.malformed(source: source, reason: reason))
            }
        }
        return batch.finish().map(outcome)
    }
}
