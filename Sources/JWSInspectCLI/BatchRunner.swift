internal import Dispatch
internal import JWSInspectCore
internal import Synchronization

/// Verifies items in batches on `jobs` threads and hands the rendered results back
/// in input order, so output order never depends on scheduling.
final class BatchRunner: Sendable {
    /// One item's outcome, rendered on the worker that verified it.
    struct Outcome: Sendable {
        let status: Status
        /// What goes to stdout (nil with --quiet, or for a malformed item in table mode).
        let output: String?
        /// A one-line error for stderr (malformed items).
        let error: String?
    }

    let verifier: Verifier
    let jobs: Int
    let render: @Sendable (Inspection) -> Outcome

    /// What a worker takes: a record still to be scanned, or an item already found.
    enum Work: Sendable {
        case record(InputStream.Record)
        case item(InputScanner.Item)
    }

    /// Records gathered before a batch is scanned and verified: enough to keep every core
    /// busy, few enough that memory stays small. One worker takes small batches, so a record
    /// is still in the CPU's caches when its tokens are verified.
    var batchSize: Int { jobs == 1 ? 16 : 2048 }

    /// Bytes of records gathered before a batch is verified, whatever their number (one
    /// record over it makes a batch of its own): memory follows the input's bytes, not its lines.
    static let batchBytes = 8 << 20

    /// Tokens verified, and their outcomes held, before those outcomes are handed over: a
    /// 64 MiB API dump holds thousands.
    static let groupSize = 2048
    /// Bytes of tokens verified before their outcomes are handed over.
    static let groupBytes = 8 << 20

    init(verifier: Verifier, jobs: Int, render: @escaping @Sendable (Inspection) -> Outcome) {
        self.verifier = verifier
        self.jobs = jobs
        self.render = render
    }

    /// Scans, verifies and renders `work` on all workers, handing each outcome to `deliver` in
    /// input order.
    ///
    /// Two parallel phases: scanning the records (so the reading thread only splits lines),
    /// then verifying every item found, in groups bounded by count and bytes (so one large
    /// JSON document, an API response with thousands of transactions, is verified on every
    /// core too, and its outcomes are handed over as they are ready, not all held).
    ///
    /// - Returns: why the first JSON-looking record that was not JSON failed to parse, if any.
    func run(_ work: [Work], deliver: (Outcome) -> Void) -> String? {
        guard !work.isEmpty else { return nil }
        let scanned = parallelMap(work) { work -> (items: [InputScanner.Item], jsonProblem: String?) in
            switch work {
            case .item(let item): return ([item], nil)
            case .record(let record): return record.scan()
            }
        }
        var group: [InputScanner.Item] = []
        var groupBytes = 0
        func verifyGroup() {
            // Tokens are verified a few at a time, their ES256 verifications back to back (see
            // `SignatureBatch`).
            let chunks = stride(from: 0, to: group.count, by: SignatureBatch.size).map {
                group[$0..<min($0 + SignatureBatch.size, group.count)]
            }
            for outcomes in parallelMap(chunks, { self.outcomes(of: $0) }) {
                outcomes.forEach(deliver)
            }
            group.removeAll(keepingCapacity: true)
            groupBytes = 0
        }
        for item in scanned.lazy.flatMap(\.items) {
            group.append(item)
            if case .token(_, let token) = item { groupBytes += token.utf8.count }
            if group.count >= Self.groupSize || groupBytes >= Self.groupBytes { verifyGroup() }
        }
        verifyGroup()
        return scanned.lazy.compactMap(\.jsonProblem).first
    }

    /// `transform` applied to every element on `jobs` threads, results in order.
    private func parallelMap<Input: Sendable, Output: Sendable>(
        _ inputs: [Input],
        _ transform: @Sendable (Input) -> Output
    ) -> [Output] {
        guard !inputs.isEmpty else { return [] }
        // One worker, or one element: no threads to hand work to.
        if jobs == 1 || inputs.count == 1 { return inputs.map(transform) }
        let slots = Slots<Output>(count: inputs.count)
        defer {
            // Release what the slots hold (tokens, rendered output), then the buffer itself.
            slots.buffer.deinitialize()
            slots.buffer.deallocate()
        }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: min(jobs, inputs.count)) { _ in
            // Workers take the next unclaimed element, so a slow one never idles the others.
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < inputs.count else { return }
                slots.buffer[index] = transform(inputs[index])
            }
        }
        return slots.buffer.map { $0! }
    }

    /// One result slot per item; each is written by exactly one worker and read only after
    /// `concurrentPerform` returns, which is why sharing the buffer is safe.
    private struct Slots<Element>: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<Element?>

        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }
    }

    /// The items' outcomes, in order: inspected by the batch engine's signature step (every
    /// signature pending, then verified back to back), then rendered.
    private func outcomes(of items: ArraySlice<InputScanner.Item>) -> [Outcome] {
        var batch = SignatureBatch(verifier: verifier, capacity: items.count)
        for item in items {
            switch item {
            case .token(let source, let token): batch.inspect(token, source: source)
            case .malformed(let source, let reason): batch.append(.malformed(source: source, reason: reason))
            }
        }
        return batch.finish().map(render)
    }
}
