// The inspector's per-frame input queue (ui/gui/input_queue.h): Dear ImGui 1.86 sees one
// state per key and button per frame, so each frame gets the events up to the second
// change of any key or button, and quick taps and clicks are spread over frames.
#include <gtest/gtest.h>

#include "ui/gui/input_queue.h"

namespace x86lab::gui {
namespace {

std::size_t push_all(InputQueue& queue, const std::vector<SDL_Event>& events) {
  for (const SDL_Event& event : events) queue.push(event);
  return events.size();
}

TEST(GuiInputQueue, TenQuickTapsTakeTwentyFramesWithOnePressEach) {
  InputQueue queue;
  push_all(queue, key_taps(SDL_SCANCODE_F11, 0, 10));
  int presses = 0, frames = 0;
  while (!queue.empty()) {
    const std::vector<SDL_Event> frame = queue.take_frame();
    ASSERT_EQ(frame.size(), 1u);
    ++frames;
    if (frame[0].type == SDL_KEYDOWN) {
      ++presses;
      EXPECT_TRUE(queue.key_down(SDL_SCANCODE_F11));
    } else {
      EXPECT_FALSE(queue.key_down(SDL_SCANCODE_F11));
    }
  }
  EXPECT_EQ(presses, 10);
  EXPECT_EQ(frames, 20);
}

TEST(GuiInputQueue, DifferentKeysShareAFrame) {
  InputQueue queue;
  // Ctrl down, R down, R up, Ctrl up: Ctrl and R go down in one frame, up in the next.
  push_all(queue, key_taps(SDL_SCANCODE_R, KMOD_CTRL, 1));
  EXPECT_EQ(queue.take_frame().size(), 2u);
  EXPECT_TRUE(queue.key_down(SDL_SCANCODE_R));
  EXPECT_TRUE(queue.key_down(SDL_SCANCODE_LCTRL));
  EXPECT_EQ(queue.take_frame().size(), 2u);
  EXPECT_FALSE(queue.key_down(SDL_SCANCODE_LCTRL));
  EXPECT_TRUE(queue.empty());
}

TEST(GuiInputQueue, TheModifiersTravelWithTheKey) {
  const std::vector<SDL_Event> events = key_taps(SDL_SCANCODE_F11, KMOD_SHIFT, 1);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[1].key.keysym.scancode, SDL_SCANCODE_F11);
  EXPECT_TRUE(events[1].key.keysym.mod & KMOD_SHIFT);
  EXPECT_FALSE(events[3].key.keysym.mod & KMOD_SHIFT);
}

TEST(GuiInputQueue, AClickWithinOneFrameIsPressedThenReleased) {
  InputQueue queue;
  push_all(queue, left_click(98, 55));
  EXPECT_EQ(queue.take_frame().size(), 2u);  // the motion and the press
  EXPECT_TRUE(queue.button_down(0));
  EXPECT_TRUE(queue.mouse_inside());
  EXPECT_EQ(queue.mouse_x(), 98);
  EXPECT_EQ(queue.mouse_y(), 55);
  EXPECT_EQ(queue.take_frame().size(), 1u);  // the release
  EXPECT_FALSE(queue.button_down(0));
}

TEST(GuiInputQueue, AnAutorepeatIsAReleaseAndAPress) {
  InputQueue queue;
  std::vector<SDL_Event> events = key_taps(SDL_SCANCODE_A, 0, 1);
  SDL_Event repeat = events[0];
  repeat.key.repeat = 1;
  SDL_Event text{};
  text.type = SDL_TEXTINPUT;
  text.text.text[0] = 'a';
  queue.push(events[0]);
  queue.push(text);
  queue.push(repeat);
  queue.push(events[1]);
  // down and text; then the repeat's release; then its press; then the release.
  EXPECT_EQ(queue.take_frame().size(), 2u);
  const std::vector<SDL_Event> release = queue.take_frame();
  ASSERT_EQ(release.size(), 1u);
  EXPECT_EQ(release[0].type, SDL_KEYUP);
  const std::vector<SDL_Event> press = queue.take_frame();
  ASSERT_EQ(press.size(), 1u);
  EXPECT_EQ(press[0].type, SDL_KEYDOWN);
  EXPECT_EQ(press[0].key.repeat, 0);
  EXPECT_EQ(queue.take_frame().size(), 1u);
  EXPECT_TRUE(queue.empty());
}

TEST(GuiInputQueue, ADragIsPressedWhereItStartsAFrameBeforeItMoves) {
  InputQueue queue;
  push_all(queue, left_drag(397, 166, 497, 266, 4));
  EXPECT_EQ(queue.take_frame().size(), 2u);  // the motion to the start and the press
  EXPECT_TRUE(queue.button_down(0));
  EXPECT_EQ(queue.mouse_x(), 397);
  EXPECT_EQ(queue.take_frame().size(), 4u);  // the moves; the release waits a frame
  EXPECT_TRUE(queue.button_down(0));
  EXPECT_EQ(queue.mouse_x(), 497);
  EXPECT_EQ(queue.mouse_y(), 266);
  EXPECT_EQ(queue.take_frame().size(), 1u);
  EXPECT_FALSE(queue.button_down(0));
}

TEST(GuiInputQueue, ThePointerLeavesOnlyWhenNoButtonIsHeld) {
  InputQueue queue;
  SDL_Event leave{};
  leave.type = SDL_WINDOWEVENT;
  leave.window.event = SDL_WINDOWEVENT_LEAVE;
  std::vector<SDL_Event> click = left_click(10, 10);
  queue.push(click[0]);
  queue.push(click[1]);
  queue.push(leave);  // dragging past the edge
  queue.take_frame();
  EXPECT_TRUE(queue.mouse_inside());
  queue.push(click[2]);
  queue.push(leave);
  queue.take_frame();
  EXPECT_FALSE(queue.mouse_inside());
}

}  // namespace
}  // namespace x86lab::gui
