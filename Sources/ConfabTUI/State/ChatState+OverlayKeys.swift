import ConfabModel
import Foundation

extension ChatState {
    mutating func handleOverlayKey(_ key: Key, _ current: Overlay) -> [ChatEffect] {
        switch current {
        case .help(let top):
            let page = HelpOverlay.visibleRows(screenHeight: height)
            let last = HelpOverlay.maxTop(screenHeight: height)
            switch key {
            case .up: overlay = .help(top: max(0, top - 1))
            case .down: overlay = .help(top: min(last, top + 1))
            case .pageUp: overlay = .help(top: max(0, top - page))
            case .pageDown: overlay = .help(top: min(last, top + page))
            default: overlay = nil
            }
            return []
        case .confirmDelete(let id):
            overlay = nil
            // Only "y" deletes; any other key, Enter included, keeps the conversation.
            guard key == .character("y") || key == .character("Y") else { return [] }
            remove(id)
            notice = "Deleted from this machine"
            return [.delete(id), reloadList]
        case .confirmUnsend(let id, let seq):
            overlay = nil
            // Only "y" deletes, as for a conversation.
            guard key == .character("y") || key == .character("Y") else { return [] }
            endSelection()
            notice = "Deleting for everyone…"
            return [.unsend(id, seq: seq)]
        case .confirmRemoveDevice(let device, let list):
            // Asked from the device list, the answer goes back to it.
            overlay = list.map(Overlay.devices)
            // Only "y" removes, as for a conversation; the full key names exactly the device asked about.
            guard key == .character("y") || key == .character("Y") else {
                notice = "Not removed"
                return []
            }
            overlay = nil
            notice = "Removing \(DeviceText.name(device))…"
            // From the list, the list comes back once the removal is done, without the machine.
            return [.devices(.remove(device.id.hex, confirmed: true))] + (list == nil ? [] : [.devices(.list)])
        case .devices(var panel):
            let effects = handleDevicesKey(key, &panel)
            if case .devices = overlay { overlay = .devices(panel) }
            return effects
        case .react(var panel):
            let effects = handleReactKey(key, &panel)
            if case .react = overlay { overlay = .react(panel) }
            return effects
        case .search(var panel):
            let effects = handleSearchKey(key, &panel)
            if case .search = overlay { overlay = .search(panel) }
            return effects
        case .newConversation(var panel):
            let effects = handleNewConversationKey(key, &panel)
            if case .newConversation = overlay { overlay = .newConversation(panel) }
            return effects
        }
    }

    private mutating func handleSearchKey(_ key: Key, _ panel: inout SearchPanel) -> [ChatEffect] {
        switch key {
        case .escape:
            overlay = nil
        case .up:
            panel.selected = max(0, panel.selected - 1)
        case .down:
            panel.selected = min(max(0, panel.hits.count - 1), panel.selected + 1)
        case .enter:
            guard panel.answered == panel.query.text, panel.hits.indices.contains(panel.selected) else { return [] }
            let hit = panel.hits[panel.selected]
            return open(hit.conversation.id, around: hit.message?.id, summary: hit.conversation)
        default:
            let before = panel.query.text
            guard panel.query.edit(key, multiline: false), panel.query.text != before else { return [] }
            let query = panel.query.text
            panel.selected = 0
            guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
                panel.hits = []
                panel.answered = nil
                return []
            }
            return [.search(query)]
        }
        return []
    }

    private mutating func handleNewConversationKey(_ key: Key, _ panel: inout NewConversationPanel) -> [ChatEffect] {
        let candidates = newConversationCandidates
        panel.cursor = min(panel.cursor, max(0, candidates.count - 1))
        switch key {
        case .escape:
            overlay = nil
        case .tab, .shiftTab:
            panel.field = panel.field == .people ? .title : .people
        case .enter:
            let title = panel.title.text.trimmingCharacters(in: .whitespaces)
            // `#general` as the title, nobody chosen: the room of that name (Protocol.md §18).
            if panel.chosen.isEmpty, title.hasPrefix("#") {
                guard let room = RoomName(typed: title) else {
                    notice = RoomName.rule
                    return []
                }
                overlay = nil
                return [.joinRoom(room)]
            }
            guard !panel.chosen.isEmpty else {
                notice = "Choose at least one person with Space, or type #NAME as the title to join a room"
                return []
            }
            overlay = nil
            return [.createConversation(participants: panel.chosen, title: title.isEmpty ? nil : title)]
        default:
            switch panel.field {
            case .people:
                switch key {
                case .up: panel.cursor = max(0, panel.cursor - 1)
                case .down: panel.cursor = min(max(0, candidates.count - 1), panel.cursor + 1)
                case .character(" "):
                    if candidates.indices.contains(panel.cursor) { panel.toggle(candidates[panel.cursor].id) }
                default: break
                }
            case .title:
                _ = panel.title.edit(key, multiline: false)
            }
        }
        return []
    }
}
