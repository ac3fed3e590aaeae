#pragma once
/// \file
/// Everything of the tasks layer: the TaskSystem seam.

#include <quadbin/tasks/task_system.hpp>
